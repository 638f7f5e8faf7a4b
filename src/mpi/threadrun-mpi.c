/*
 * threadrun-mpi: the one program linked with MPI.  One per rank (mpirun,
 * srun); it runs threadrun, found beside it, as its child with the usual
 * arguments and releases every measurement's start on all ranks together
 * (the gate protocol of src/lib/gate.h: the child writes requests on a
 * pipe, the wrapper answers on another).  A workload cannot call MPI_Init
 * itself: a sweep starts it again for every point, and MPI may be
 * initialised once per process.
 *
 * Rounds: each rank waits for its child's next request or its exit; then
 * every rank posts what it has (MPI_Iallgather, polled with MPI_Test and a
 * 1 ms sleep, never a blocking collective that spins beside the workers)
 * and all decide alike.  The requests at the smallest position go: a
 * measurement starts synchronised only when every rank is there with the
 * same key, else alone; ranks ahead hold; a rank whose child exited is
 * waited for by nobody.  Each round answers at least one request, so no
 * divergence of the ranks can hang the job.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "launcher.h"
#include "runenv.h"
#include "version.h"

#define PROG "threadrun-mpi"

static const char help[] =
	"usage: " PROG " [THREADRUN ARGS...]\n"
	"       " PROG " --version | --help\n"
	"\n"
	"Run threadrun (the one beside this program) on every rank of an MPI job,\n"
	"with the same arguments as threadrun, and start each measurement on all\n"
	"ranks together: sweeps, repeats and --resume work as under threadrun.\n"
	"\n"
	"  mpirun --map-by ppr:1:node --bind-to none " PROG " --sweep 1-64x2 \\\n"
	"      -o results/cluster-%h.csv -- t2accel -a rsa -d 5\n"
	"  srun -N 16 --ntasks-per-node=1 -c \"$(nproc)\" --cpu-bind=none --mpi=pmix \\\n"
	"      " PROG " --sweep 1-64x2 -o results/cluster-%h.csv -- t2accel -a rsa -d 5\n"
	"\n"
	"Rows say start_sync yes when every rank started the measurement together,\n"
	"no when they were not at the same measurement (it ran alone, not waited\n"
	"for).  --resume skips a combination only when every rank's file has it.\n"
	"Rank 0 prints one line per synchronised measurement: the cluster rate\n"
	"(total work over the longest rank's wall time), the overlap of the ranks'\n"
	"windows and the spread of their starts.  SIGINT or SIGTERM to one rank\n"
	"ends the job; so does a rank's program killed by a signal.\n"
	"\n"
	"Exit status: the worst rank's threadrun status; 2 usage error; 127 no\n"
	"threadrun beside this program.\n";

/* What a rank posts in a round. */
enum rank_state { ST_RESUME, ST_READY, ST_EXITED };

struct post {
	int32_t state;          /* enum rank_state: a request waiting, or the child exited */
	int32_t done;           /* resume: this rank's file has the combination */
	int32_t status;         /* exited: the child's exit status (128+N: signal N) */
	int32_t abort;          /* end the job: a signal, a program killed */
	uint32_t index, seq;    /* the request's position */
	uint64_t key;           /* FNV-1a of the request's key */
	int64_t sync_round;     /* the round of this rank's last synchronised release, -1 */
	int32_t nrows;          /* rows its process wrote since */
	int32_t row_status;
	double work, wall, t_start, t_end;     /* the first of them; t_* epoch microseconds */
};

struct request {
	enum rank_state kind;
	char token[64];
	unsigned index, seq;
	bool done;
	uint64_t key;
	char *key_text;
	long pid;               /* the asking process */
};

struct wrapper {
	int rank, ranks;
	pid_t child;            /* its process group too; 0 once reaped */
	int status;
	int req_fd, rep_fd;     /* requests in, replies out; -1 when closed */
	char buf[2 * GATE_LINE];
	size_t buf_len;
	bool discard;           /* inside an overlong line */
	struct request *queue;
	size_t nqueue, cap;
	bool abort, killed;
	double killed_at;       /* when the child was told to end (CLOCK_MONOTONIC) */
	/* The measurement this rank last started with every rank. */
	long sync_pid;
	int64_t sync_round, printed_round;
	char *sync_key;
	int32_t nrows, row_status;
	double work, wall, t_start, t_end;
	char unit[64];
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* A signal to the wrapper goes to its child's process group and ends the
 * job on every rank (the next round tells them). */
static void forward_signal(struct wrapper *w)
{
	int sig = got_signal;

	if (!sig)
		return;
	got_signal = 0;
	if (w->child > 0)
		kill(-w->child, sig);
	w->abort = true;
	if (!w->killed)
		w->killed_at = mono_s();
	w->killed = true;
}

/* End the job here: SIGTERM to the child once, whatever asked for it;
 * SIGKILL when it is still there 10 s later. */
static void end_job(struct wrapper *w)
{
	if (w->child <= 0)
		return;
	if (!w->killed) {
		kill(-w->child, SIGTERM);
		w->killed = true;
		w->killed_at = mono_s();
	} else if (w->killed_at > 0 && mono_s() - w->killed_at > 10) {
		kill(-w->child, SIGKILL);
		w->killed_at = 0;
	}
}

/* Answer a request yes or no in its own words; a reader that is gone is
 * not an error. */
static void reply(struct wrapper *w, const struct request *q, bool yes)
{
	bool ready = q->kind == ST_READY;
	char line[128];
	int n;

	if (w->rep_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %s %s\n", ready ? GATE_GO : GATE_SKIP, q->token,
		     ready ? (yes ? GATE_YES : GATE_NO) : (yes ? GATE_TRUE : GATE_FALSE));
	if (n > 0 && (size_t)n < sizeof(line) && write(w->rep_fd, line, (size_t)n) < 0 &&
	    errno != EAGAIN && errno != EINTR) {
		close(w->rep_fd);
		w->rep_fd = -1;
	}
}

static void drop_head(struct wrapper *w)
{
	free(w->queue[0].key_text);
	memmove(w->queue, w->queue + 1, (w->nqueue - 1) * sizeof(*w->queue));
	w->nqueue--;
}

/* "N.M" as two numbers. */
static bool parse_pos(const char *s, unsigned *index, unsigned *seq)
{
	char *end;
	unsigned long a, b;

	errno = 0;
	a = strtoul(s, &end, 10);
	if (errno || end == s || *end != '.' || a > UINT_MAX)
		return false;
	s = end + 1;
	b = strtoul(s, &end, 10);
	if (errno || end == s || *end || b > UINT_MAX)
		return false;
	*index = (unsigned)a;
	*seq = (unsigned)b;
	return true;
}

/* The process of a token PID.N. */
static long token_pid(const char *token)
{
	return strtol(token, NULL, 10);
}

/* `ready TOKEN POS KEY` or `resume TOKEN POS DONE KEY`: queued. */
static void take_request(struct wrapper *w, enum rank_state kind, char *rest)
{
	struct request q = { .kind = kind };
	char *token = strsep(&rest, " "), *pos = strsep(&rest, " "), *done = NULL;
	void *grown;

	if (kind == ST_RESUME)
		done = strsep(&rest, " ");
	if (!token || !pos || !rest || (kind == ST_RESUME && !done) ||
	    strlen(token) >= sizeof(q.token) || !parse_pos(pos, &q.index, &q.seq))
		return;
	snprintf(q.token, sizeof(q.token), "%s", token);
	q.done = done && strcmp(done, GATE_TRUE) == 0;
	q.key = fnv1a(rest);
	q.pid = token_pid(token);
	if (w->child <= 0) {
		/* Nothing waits on this rank any more: never hold it. */
		reply(w, &q, false);
		return;
	}
	if (w->nqueue == w->cap) {
		grown = realloc(w->queue, (w->cap ? w->cap * 2 : 4) * sizeof(*w->queue));
		if (!grown) {
			reply(w, &q, false);
			return;
		}
		w->queue = grown;
		w->cap = w->cap ? w->cap * 2 : 4;
	}
	q.key_text = w->rank == 0 ? strdup(rest) : NULL;
	w->queue[w->nqueue++] = q;
}

/* `row TOKEN WORK UNIT WALL_S T_START T_END STATUS`: the first row of the
 * process last started with every rank is its measurement's. */
static void take_row(struct wrapper *w, char *rest)
{
	char *token = strsep(&rest, " "), *work = strsep(&rest, " "), *unit = strsep(&rest, " ");
	double wall, t0, t1;
	int status;

	if (!token || !work || !unit || !rest ||
	    sscanf(rest, "%lf %lf %lf %d", &wall, &t0, &t1, &status) != 4)
		return;
	/* A program killed by a signal (threadrun's run row says so) ends
	 * the job: the other ranks would go on measuring alone. */
	if (status > 128 && status <= 128 + 64)
		w->abort = true;
	if (w->sync_pid <= 0 || token_pid(token) != w->sync_pid)
		return;
	if (w->nrows++ == 0) {
		w->work = strtod(work, NULL);
		snprintf(w->unit, sizeof(w->unit), "%s", unit);
		w->wall = wall;
		w->t_start = t0;
		w->t_end = t1;
		w->row_status = status;
	}
}

static void take_line(struct wrapper *w, char *line)
{
	char *verb = strsep(&line, " ");

	if (!line)
		return;
	if (strcmp(verb, GATE_READY) == 0)
		take_request(w, ST_READY, line);
	else if (strcmp(verb, GATE_RESUME) == 0)
		take_request(w, ST_RESUME, line);
	else if (strcmp(verb, GATE_ROW) == 0)
		take_row(w, line);
}

/* Read what the child's processes wrote so far, line by line. */
static void read_requests(struct wrapper *w)
{
	char *nl, *start;
	ssize_t n;

	while (w->req_fd >= 0) {
		n = read(w->req_fd, w->buf + w->buf_len, sizeof(w->buf) - w->buf_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (n == 0) {
			/* Every writer is gone: the child's exit tells the rest. */
			close(w->req_fd);
			w->req_fd = -1;
			return;
		}
		w->buf_len += (size_t)n;
		start = w->buf;
		while ((nl = memchr(start, '\n', w->buf_len - (size_t)(start - w->buf)))) {
			*nl = '\0';
			if (!w->discard)
				take_line(w, start);
			w->discard = false;
			start = nl + 1;
		}
		w->buf_len -= (size_t)(start - w->buf);
		memmove(w->buf, start, w->buf_len);
		/* A line longer than any the protocol writes: dropped whole. */
		if (w->buf_len == sizeof(w->buf)) {
			w->buf_len = 0;
			w->discard = true;
		}
	}
}

static int exit_status(int st)
{
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* Whether the child exited (reaped; its last lines read). */
static bool child_exited(struct wrapper *w)
{
	int st;
	pid_t r;

	if (w->child <= 0)
		return true;
	r = waitpid(w->child, &st, WNOHANG);
	if (r == 0 || (r < 0 && errno == EINTR))
		return false;
	w->status = r < 0 ? 1 : exit_status(st);
	if (w->status > 128)
		w->abort = true;
	w->child = 0;
	read_requests(w);
	/* Processes it left behind are not waited for. */
	while (w->nqueue) {
		reply(w, &w->queue[0], false);
		drop_head(w);
	}
	return true;
}

/* Phase one: until this rank has a request to post or its child exited. */
static void wait_local(struct wrapper *w)
{
	struct pollfd pfd;

	for (;;) {
		forward_signal(w);
		if (w->abort || w->killed)
			end_job(w);
		if (w->nqueue || child_exited(w))
			return;
		if (w->req_fd < 0) {
			nap_ms(20);
			continue;
		}
		pfd = (struct pollfd){ .fd = w->req_fd, .events = POLLIN };
		if (poll(&pfd, 1, 50) > 0)
			read_requests(w);
	}
}

/* Phase two: every rank's post, polled (MPI_Test, 1 ms sleeps). */
static int exchange(struct wrapper *w, const struct post *mine, struct post *all)
{
	MPI_Request req;
	int flag = 0;

	if (MPI_Iallgather(mine, sizeof(*mine), MPI_BYTE, all, sizeof(*mine), MPI_BYTE,
			   MPI_COMM_WORLD, &req) != MPI_SUCCESS)
		return -1;
	for (;;) {
		if (MPI_Test(&req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -1;
		if (flag)
			return 0;
		forward_signal(w);
		nap_ms(1);
	}
}

static void fill_post(const struct wrapper *w, struct post *p)
{
	const struct request *q = w->nqueue ? &w->queue[0] : NULL;

	memset(p, 0, sizeof(*p));
	p->state = q ? (int32_t)q->kind : ST_EXITED;
	p->status = w->status;
	p->abort = w->abort;
	if (q) {
		p->done = q->done;
		p->index = q->index;
		p->seq = q->seq;
		p->key = q->key;
	}
	p->sync_round = w->sync_round;
	p->nrows = w->nrows;
	p->row_status = w->row_status;
	p->work = w->work;
	p->wall = w->wall;
	p->t_start = w->t_start;
	p->t_end = w->t_end;
}

/* Position order: combination, measurement, a resume question first. */
static int pos_cmp(const struct post *a, const struct post *b)
{
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->state == b->state ? 0 : a->state < b->state ? -1 : 1;
}

/* The key's field N from the right (0: the label), "|"-separated, into BUF. */
static const char *key_field(const char *key, int n, char *buf, size_t len)
{
	const char *end = key + strlen(key), *p = end;

	for (;;) {
		while (p > key && p[-1] != '|')
			p--;
		if (n-- == 0 || p == key)
			break;
		end = --p;
	}
	snprintf(buf, len, "%.*s", (int)(end - p), p);
	return buf;
}

/* Rank 0: one line per measurement every rank started together, once
 * every rank's row of it is in. */
static void print_cluster(struct wrapper *w, const struct post *all)
{
	double work = 0, wall = 0, s_min = INFINITY, s_max = -INFINITY, e_min = INFINITY,
	       e_max = -INFINITY;
	char label[256], threads[32], policy[256], repeat[32];
	int64_t round = all[0].sync_round;
	int i, failed = -1;

	if (w->rank != 0 || round < 0 || round == w->printed_round || !w->sync_key)
		return;
	for (i = 0; i < w->ranks; i++) {
		/* A program that wrote several rows (STREAM, at its end) says
		 * no single measurement's window. */
		if (all[i].sync_round != round || all[i].nrows != 1)
			return;
	}
	w->printed_round = round;
	for (i = 0; i < w->ranks; i++) {
		work += all[i].work;
		wall = fmax(wall, all[i].wall);
		s_min = fmin(s_min, all[i].t_start);
		s_max = fmax(s_max, all[i].t_start);
		e_min = fmin(e_min, all[i].t_end);
		e_max = fmax(e_max, all[i].t_end);
		if (all[i].row_status && failed < 0)
			failed = i;
	}
	/* Filled first: the noun's ending reads it within the same call. */
	key_field(w->sync_key, 3, threads, sizeof(threads));
	printf("%s: %s, %s thread%s, %s, repeat %s: %d rank%s, ", PROG,
	       key_field(w->sync_key, 0, label, sizeof(label)), threads, strcmp(threads, "1") ? "s" : "",
	       key_field(w->sync_key, 2, policy, sizeof(policy)),
	       key_field(w->sync_key, 1, repeat, sizeof(repeat)), w->ranks, w->ranks == 1 ? "" : "s");
	if (failed >= 0)
		printf("cluster rate n/a (rank %d failed, status %d)", failed,
		       (int)all[failed].row_status);
	else if (wall > 0)
		printf("cluster rate %.6g %s", work / wall, w->unit);
	else
		printf("cluster rate n/a (no wall time)");
	if (s_min > 0 && e_max > s_min)
		printf(", overlap %.1f%%, start spread %.3f ms\n",
		       100 * fmax(0, (e_min - s_max) / (e_max - s_min)), (s_max - s_min) / 1e3);
	else
		printf(", overlap n/a (no measurement window)\n");
	fflush(stdout);
}

/* Answer this rank's request if it is at the smallest position. */
static void release(struct wrapper *w, const struct post *all, int64_t round)
{
	const struct post *me = &all[w->rank], *min = NULL;
	struct request *q;
	bool together = true, done = true;
	int i;

	for (i = 0; i < w->ranks; i++)
		if (all[i].state != ST_EXITED && (!min || pos_cmp(&all[i], min) < 0))
			min = &all[i];
	if (!w->nqueue || !min || pos_cmp(me, min) != 0)
		return;
	for (i = 0; i < w->ranks; i++) {
		if (all[i].state != me->state || pos_cmp(&all[i], me) != 0 || all[i].key != me->key)
			together = false;
		if (!all[i].done)
			done = false;
	}
	q = &w->queue[0];
	if (q->kind == ST_RESUME) {
		reply(w, q, together && done);
	} else {
		reply(w, q, together);
		/* Rows count for the cluster line only after a release
		 * with every rank. */
		w->sync_pid = together ? q->pid : 0;
		w->sync_round = together ? round : -1;
		w->nrows = 0;
		if (together && w->rank == 0) {
			free(w->sync_key);
			w->sync_key = q->key_text;
			q->key_text = NULL;
		}
	}
	drop_head(w);
}

/* The rounds, until every rank's child exited: the worst exit status. */
static int rounds(struct wrapper *w)
{
	struct post mine, *all = calloc((size_t)w->ranks, sizeof(*all));
	int64_t round = 0;
	int i, worst, active;
	bool abort;

	if (!all) {
		fprintf(stderr, "%s: out of memory for %d ranks\n", PROG, w->ranks);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (;; round++) {
		wait_local(w);
		fill_post(w, &mine);
		if (exchange(w, &mine, all) < 0) {
			fprintf(stderr, "%s: rank %d: the exchange between ranks failed\n", PROG, w->rank);
			end_job(w);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		abort = false;
		active = 0;
		worst = 0;
		for (i = 0; i < w->ranks; i++) {
			abort |= all[i].abort != 0;
			if (all[i].state != ST_EXITED)
				active++;
			else if (all[i].status > worst)
				worst = all[i].status;
		}
		print_cluster(w, all);
		if (!active)
			break;
		if (abort) {
			w->abort = true;
			end_job(w);
		}
		release(w, all, round);
	}
	free(all);
	return worst;
}

/* threadrun beside this program: a new string, or NULL with errno. */
static char *find_threadrun(void)
{
	char self[PATH_MAX], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash) {
		errno = ENOENT;
		return NULL;
	}
	*slash = '\0';
	if (asprintf(&path, "%s/threadrun", self) < 0)
		return NULL;
	if (access(path, X_OK) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* The job id every rank's rows share: the launcher's, else rank 0 makes
 * one (HOST:PID:START_US), sent to all.  0, or -1. */
static int share_job(int rank, char **job)
{
	struct launcher_id id = { 0 };
	char host[256] = "", warn[512];
	struct timeval tv;
	int len = 0;

	*job = NULL;
	if (rank == 0) {
		/* Its warning is threadrun's to give, once per rank. */
		if (launcher_detect(env_get, &id, warn, sizeof(warn)) == 1 && id.job)
			*job = strdup(id.job);
		launcher_id_clear(&id);
		if (!*job) {
			gethostname(host, sizeof(host) - 1);
			gettimeofday(&tv, NULL);
			if (asprintf(job, "%s:%ld:%lld", host, (long)getpid(),
				     (long long)tv.tv_sec * 1000000 + tv.tv_usec) < 0)
				*job = NULL;
		}
		len = *job ? (int)strlen(*job) + 1 : 0;
	}
	/* Once, at the start: nothing runs beside it yet. */
	MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (len <= 0)
		return -1;
	if (rank != 0 && !(*job = malloc((size_t)len)))
		return -1;
	MPI_Bcast(*job, len, MPI_CHAR, 0, MPI_COMM_WORLD);
	return 0;
}

/* Close every descriptor from 3 up but the two the child keeps. */
static void close_others(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3)
		close_range(3, (unsigned)lo - 1, 0);
	if (hi > lo + 1)
		close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	close_range((unsigned)hi + 1, ~0u, 0);
}

/* Start threadrun with the gate's pipes; 0 or -1 with a message said. */
static int start_child(struct wrapper *w, const char *path, char **argv)
{
	int req[2], rep[2], child_r, child_w;
	char num[64];
	pid_t pid;

	if (pipe2(req, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0) {
		fprintf(stderr, "%s: cannot create a pipe: %s\n", PROG, strerror(errno));
		return -1;
	}
	child_r = rep[0];
	child_w = req[1];
	snprintf(num, sizeof(num), "%d,%d", child_r, child_w);
	setenv(ENV_SYNC_FD, num, 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: cannot fork: %s\n", PROG, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		/* Its own process group, which a signal to the wrapper
		 * reaches whole; it ends when the wrapper dies. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close_others(child_r, child_w);
		if (fcntl(child_r, F_SETFD, 0) < 0 || fcntl(child_w, F_SETFD, 0) < 0)
			_exit(126);
		argv[0] = (char *)path;
		execv(path, argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	setpgid(pid, pid);
	close(child_r);
	close(child_w);
	w->child = pid;
	w->req_fd = req[0];
	w->rep_fd = rep[1];
	/* Neither end may block the wrapper: requests are polled, and a
	 * reply nobody reads is dropped. */
	fcntl(w->req_fd, F_SETFL, O_NONBLOCK);
	fcntl(w->rep_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* --version: ours, then the MPI library's first line and the standard it
 * implements (both may be asked before MPI_Init). */
static void print_version(void)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int len = 0, major = 0, minor = 0;

	version_print(stdout, PROG);
	MPI_Get_version(&major, &minor);
	MPI_Get_library_version(lib, &len);
	lib[sizeof(lib) - 1] = '\0';
	lib[strcspn(lib, "\n")] = '\0';
	printf("MPI %d.%d: %s\n", major, minor, *lib ? lib : "unknown library");
}

/* What MPI itself says, for the launchers whose environment does not:
 * the job, the rank and the ranks. */
static void export_mpi_identity(const struct wrapper *w, const char *job)
{
	char num[32];

	setenv(ENV_JOB, job, 1);
	snprintf(num, sizeof(num), "%d", w->rank);
	setenv(ENV_RANK, num, 1);
	snprintf(num, sizeof(num), "%d", w->ranks);
	setenv(ENV_RANKS, num, 1);
}

static void wrapper_free(struct wrapper *w)
{
	while (w->nqueue)
		drop_head(w);
	free(w->queue);
	free(w->sync_key);
	if (w->req_fd >= 0)
		close(w->req_fd);
	if (w->rep_fd >= 0)
		close(w->rep_fd);
}

int main(int argc, char **argv)
{
	struct wrapper w = { .req_fd = -1, .rep_fd = -1, .sync_round = -1, .printed_round = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	char *path, *job = NULL;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "%s: threadrun's arguments missing, usage: %s [THREADRUN ARGS...] (-h: help)\n",
			PROG, PROG);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(help, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		print_version();
		return 0;
	}
	path = find_threadrun();
	if (!path) {
		fprintf(stderr, "%s: cannot find threadrun beside this program: %s\n", PROG,
			strerror(errno));
		return 127;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &w.ranks);
	if (share_job(w.rank, &job) < 0) {
		fprintf(stderr, "%s: rank %d: out of memory for the job id\n", PROG, w.rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	export_mpi_identity(&w, job);
	/* Replies to a child that is gone are dropped, not fatal. */
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (start_child(&w, path, argv) < 0) {
		/* This rank takes part in the rounds as one that ended. */
		w.status = 126;
		w.abort = true;
	}
	ret = rounds(&w);
	wrapper_free(&w);
	free(job);
	free(path);
	MPI_Finalize();
	return ret;
}

/* t2accel: threaded crypto throughput, verified, placed by threadrun. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "heap.h"
#include "p11.h"
#include "placement.h"
#include "report.h"
#include "runner.h"
#include "workload.h"

#define PROG "t2accel"
#define MAX_SIZE (64u << 20)

static const struct backend *const backends[] = { &backend_evp, &backend_pkcs11 };

static const size_t nbackends = sizeof(backends) / sizeof(backends[0]);

static const char default_sizes[] = "16,64,256,1024,8192,16384";

struct opts {
	const struct algo *algos[ALGO_MAX];
	unsigned nalgos;
	uint64_t *sizes;
	int nsizes;
	unsigned bits;
	const char *key;        /* -k as given: RSA bits or an ECDSA/ECDH curve */
	double seconds;
	uint64_t reps;
	bool latency;
	uint64_t latency_batch;
	const struct backend *be;
	const char *results;
	bool quiet;
	bool all;               /* -a all: what the backend lacks is named, not failed */
	struct backend_opts beo;
	const struct algo *macs[ALGO_MAX];  /* --hmac, --cmac */
	unsigned nmacs;
	bool decrypt, aead, rekey;
	unsigned misalign;
};

/* Rows the command line makes (-a evp:NAME, --hmac DIGEST, --cmac CIPHER):
 * their kind, key and block come from the providers (the backend's
 * resolve), their checks are the kind's, no published answer is carried. */
static struct algo custom[ALGO_MAX];
static char custom_text[ALGO_MAX][3][80];
static unsigned ncustom;

static struct opts opts = { .bits = 2048, .seconds = 3, .be = &backend_evp };

#define O(field) offsetof(struct opts, field)

static int parse_algos(const char *text, void *opts, char *err, size_t errlen);
static int parse_bits(const char *text, void *opts, char *err, size_t errlen);
static int parse_hmac(const char *text, void *opts, char *err, size_t errlen);
static int parse_cmac(const char *text, void *opts, char *err, size_t errlen);
static int parse_provider(const char *text, void *opts, char *err, size_t errlen);

static void algos_help(char *buf, size_t len)
{
	char choices[384];

	algo_choices(choices, sizeof(choices));
	snprintf(buf, len, "%s, a comma list, or all (default all); evp:NAME is any cipher or digest the providers offer (openssl speed -evp NAME)",
		 choices);
}

static const struct opt_spec options[] = {
	{ OPT_CALLBACK('a', "algorithm", "ALGS", parse_algos, NULL), .help_fn = algos_help },
	{ OPT_LIST('s', "size", "BYTES", O(sizes), O(nsizes), 1, MAX_SIZE,
		   "buffer sizes, comma list (default 16,64,256,1024,8192,16384)") },
	{ OPT_CALLBACK('k', "bits", "BITS", parse_bits, "RSA key size: 1024, 2048, 3072 or 4096 (default 2048); for ffdh, the group's: 2048, 3072, 4096, 6144 or 8192; for ecdsa and ecdh, the curve: p256, p384 or p521") },
	{ OPT_DOUBLE('d', "seconds", "S", O(seconds), 0.01, 86400,
		     "time-based: every worker runs S seconds (default 3; 0.5 allowed)"),
	  .excludes = "reps", .excludes_msg = "-d (time-based) and -r (count-based) exclude each other; give one" },
	{ OPT_U64('r', "reps", "R", O(reps), 1, UINT64_MAX / 2,
		  "count-based: R operations in total, shared among the workers") },
	{ OPT_FLAG(0, "latency", O(latency),
		   "per-operation latency: p50, p90, p99, p99.9 and max per worker and merged, in the rows and the table") },
	{ OPT_U64(0, "latency-batch", "N", O(latency_batch), 1, 1u << 20,
		  "with --latency: time N operations per clock read (default: enough that the clock costs at most 1% of a batch)"),
	  .needs = "latency", .needs_msg = "--latency-batch %s needs --latency" },
	{ OPT_CALLBACK(0, "hmac", "DIGEST", parse_hmac, "also time HMAC over DIGEST, any the providers offer (openssl speed -hmac); repeatable") },
	{ OPT_CALLBACK(0, "cmac", "CIPHER", parse_cmac, "also time CMAC over CIPHER, a CBC cipher the providers offer (openssl speed -cmac); repeatable") },
	{ OPT_FLAG(0, "decrypt", O(decrypt),
		   "ciphers and AEAD: time decryption (AEAD: opening one record, its tag checked; with --stream, a stream) instead of encryption") },
	{ OPT_FLAG(0, "aead", O(aead),
		   "AEAD: openssl speed -aead's TLS-like record: 13 bytes of additional data and a new IV per record") },
	{ OPT_FLAG(0, "rekey", O(rekey),
		   "AEAD: set the key again every record (its key schedule, GCM's GHASH table), as OpenSSL 3's speed -aead does; TLS keeps it") },
	{ OPT_FLAG(0, "stream", O(beo.stream),
		   "AEAD: openssl speed -evp's loop: the buffer updated in place under one IV, no record (AAD, IV, tag) per operation; GCM and ChaCha20-Poly1305"),
	  .excludes = "aead rekey",
	  .excludes_msg = "--stream times one stream under one IV and key: it does not go with --aead's records or --rekey" },
	{ OPT_UNSIGNED(0, "misalign", "N", O(misalign), 0, 63,
		       "ciphers, digests, AEAD and MACs work on a buffer N bytes past a 64-byte boundary, 0..63 (default 0)") },
	{ OPT_CALLBACK(0, "provider", "NAME", parse_provider,
		       "load OpenSSL provider NAME instead of default and legacy; repeatable, up to 8") },
	{ OPT_STRING(0, "propquery", "Q", O(beo.propq),
		     "OpenSSL's default property query, e.g. provider=default or fips=yes") },
	{ OPT_CHOICE('b', "backend", "NAME", O(be), backends, &nbackends,
		     "evp (OpenSSL libcrypto, the default) or pkcs11 (a PKCS#11 token)"), .indirect = true },
	{ OPT_STRING(0, "module", "MODULE", O(beo.module),
		     "PKCS#11 module: a path, a p11-kit module name or a file name (default: SoftHSM2, on a temporary token)") },
	{ OPT_STRING(0, "module-args", "STRING", O(beo.module_args),
		     "PKCS#11: the module's C_Initialize string (pReserved), as NSS's softokn needs; default: the p11-kit module's x-init-reserved") },
	{ OPT_STRING(0, "module-dir", "DIR", O(beo.module_dir),
		     "PKCS#11: look --module NAME up as DIR/NAME.module (p11-kit's format) instead of in p11-kit's directories") },
	{ OPT_U64(0, "slot", "N", O(beo.slot), 0, UINT32_MAX, "PKCS#11: use the existing token in slot N"),
	  .seen = OPT_SEEN(struct opts, beo.slot_set) },
	{ OPT_STRING(0, "token-label", "LABEL", O(beo.token_label), "PKCS#11: use the existing token labelled LABEL") },
	{ OPT_STRING(0, "pin-file", "FILE", O(beo.pin_file),
		     "PKCS#11: the user PIN is FILE's one line, FILE mode 600 (else T2ACCEL_PIN)") },
	{ OPT_FLAG(0, "insecure-files", O(beo.insecure_files),
		   "PKCS#11: accept a PIN file others can read, a module others can write") },
	{ OPT_RESULTS(O(results), "append result rows to FILE (default: threadrun's file)") },
	{ OPT_QUIET(O(quiet), "results only: the table, without the header, progress and per-worker lines; warnings stay") },
	{ OPT_PRINT_CONFIG(WORKLOAD_CONFIG) },
	{ OPT_LIST_ACTION("print the algorithm table, one tab-separated line each, and exit") },
	{ OPT_VERSION(WORKLOAD_VERSION) },
	{ OPT_HELP },
};

static const char help_after[] =
	"Workers: THREADRUN_THREADS (set by threadrun), else OMP_NUM_THREADS, else 1.\n"
	"Each worker binds itself to its planned PU (THREADRUN_PLAN), checks known\n"
	"answers, warms up, then all start together; rates are wall-clock.\n"
	"\n"
	"  threadrun 16 t2accel -a rsa -d 1\n"
	"  threadrun -p scatter 2 t2accel -a aes,sha256 -s 16,8192\n"
	"\n"
	"--list prints one line per algorithm, tab-separated: NAME (what -a takes),\n"
	"LABELS (its measurements' names in tables and rows, space-separated), KIND\n"
	"(cipher, digest, sign, aead, mac or derive), LEGACY (yes: in OpenSSL's legacy\n"
	"provider, else no), EVP (OpenSSL's name for it; a MAC's \"HMAC:SHA256\"), STUDY\n"
	"(yes: in src/study's default set), KEYS (the key's bits, RSA's sizes, the curve\n"
	"or group) and PROVIDER (the loaded provider that serves it, after --provider;\n"
	"- none).  With -b pkcs11 (and the module options) before it: NAME, MECHANISM\n"
	"(the PKCS#11 mechanism timed, - for none) and OFFERED (yes: the token's\n"
	"C_GetMechanismList has it and what makes the key, else no).\n"
	"\n"
	"  t2accel -a evp:aes-128-ofb,evp:sha3-384 --hmac sha3-256 --cmac aes-256-cbc\n"
	"  t2accel --provider default --propquery provider=default -a aes128-gcm --aead\n"
	"\n"
	"PKCS#11 (-b pkcs11): --module takes a path, a p11-kit module name (p11-kit\n"
	"list-modules) or a file name; NSS's softokn wants --module-args:\n"
	"  threadrun 2 t2accel -b pkcs11 --module libsoftokn3.so --slot 1 \\\n"
	"    --module-args \"" P11_NSS_NO_DB "\"\n"
	"\n"
	"Exit status: 0 ok; 1 a check failed or a crypto call failed; 2 usage (a\n"
	"--module path that is no file, a slot, label or PIN the module lacks too);\n"
	"3 an algorithm asked for is not available here (with -a all: none is), no\n"
	"PKCS#11 module of that name here, or a module with no token;\n"
	"128+N interrupted by signal N.\n";

static volatile sig_atomic_t interrupted;

/* Only a flag: the main path stops the workers and removes what the run
 * made (a temporary token) before it exits 128+N. */
static void on_signal(int sig)
{
	interrupted = sig;
}

/*
 * Every signal whose default action ends the process, but the faults
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS), which no
 * program can carry on from: what they leave, the next run removes.
 * SIGPIPE too: a reader that went away (t2accel ... | head -1) ends the
 * run like Ctrl-C does.
 */
static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGPROF, SIGIO,
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

static void catch_stop_signals(void)
{
	/* SA_RESTART: a module's system calls are not cut short; the flag is
	 * polled. */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART }, old;
	size_t i;
	int s;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		/* Under nohup, a hangup is no ending. */
		if (stop_signals[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(stop_signals[i], &sa, NULL);
	}
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaction(s, &sa, NULL);
}

/* A worker number from a test switch, parsed like every number. */
static int num_parse_int_env(const char *name, const char *text, int *out)
{
	unsigned v;
	char err[256];

	if (num_parse_unsigned(name, text, 0, PL_MAX_WORKERS - 1, &v, err, sizeof(err)) < 0) {
		msg_error(PROG, "%s", err);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* A row for -a evp:NAME (MAC NULL), --hmac NAME or --cmac NAME (MAC
 * "HMAC", "CMAC"), or NULL with the message: a name OpenSSL may know. */
static const struct algo *custom_row(const char *mac, const char *name, char *err, size_t errlen)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./";
	const char *opt = mac ? (mac[0] == 'H' ? "hmac" : "cmac") : "evp";
	size_t n = strlen(name);
	char (*t)[80];

	if (!n || n > 64 || strspn(name, ok) != n) {
		snprintf(err, errlen, "%s: '%s' is not an OpenSSL algorithm name: 1 to 64 letters, digits, '-', '_', '.' or '/'",
			 opt, name);
		return NULL;
	}
	if (ncustom == ALGO_MAX) {
		snprintf(err, errlen, "%s: at most %d algorithms made on the command line", opt, ALGO_MAX);
		return NULL;
	}
	t = custom_text[ncustom];
	snprintf(t[0], sizeof(t[0]), "%s:%s", opt, name);
	snprintf(t[1], sizeof(t[1]), "%s%s%s", mac ? opt : "", mac ? "-" : "", name);
	snprintf(t[2], sizeof(t[2]), "%s%s%s", mac ? mac : "", mac ? ":" : "", name);
	/* A digest until resolved: no block to check sizes against. */
	custom[ncustom] = (struct algo){ .name = t[0], .label = t[1], .evp_name = t[2],
					 .kind = mac ? ALGO_MAC : ALGO_DIGEST, .key_len = 32,
					 .extra = true, .kat.source = "none carried (made on the command line)" };
	return &custom[ncustom++];
}

static int add_mac(const char *mac, const char *name, struct opts *o, char *err, size_t errlen)
{
	const struct algo *a;

	if (o->nmacs == ALGO_MAX || !(a = custom_row(mac, name, err, errlen)))
		return -1;
	o->macs[o->nmacs++] = a;
	return 0;
}

static int parse_hmac(const char *text, void *opts, char *err, size_t errlen)
{
	return add_mac("HMAC", text, opts, err, errlen);
}

static int parse_cmac(const char *text, void *opts, char *err, size_t errlen)
{
	return add_mac("CMAC", text, opts, err, errlen);
}

static int parse_provider(const char *text, void *opts, char *err, size_t errlen)
{
	struct backend_opts *b = &((struct opts *)opts)->beo;

	if (b->nproviders == BE_MAX_PROVIDERS || !text[0]) {
		snprintf(err, errlen, "provider: '%s': give a provider's name, at most %d of them", text,
			 BE_MAX_PROVIDERS);
		return -1;
	}
	b->providers[b->nproviders++] = text;
	return 0;
}

static int parse_algos(const char *text, void *opts, char *err, size_t errlen)
{
	struct opts *o = opts;
	char **items = NULL, choices[384], accepted[400];
	const struct algo *a;
	size_t i;
	int n = 0, k, ret = -1;

	algo_choices(choices, sizeof(choices));
	o->nalgos = 0;
	o->all = strcmp(text, "all") == 0;
	if (o->all) {
		for (i = 0; i < nalgos; i++)
			o->algos[o->nalgos++] = &algos[i];
		return 0;
	}
	snprintf(accepted, sizeof(accepted), "%s (or all)", choices);
	n = list_split("algorithm", text, accepted, &items, err, errlen);
	if (n < 0)
		goto out;
	for (k = 0; k < n; k++) {
		if (strncmp(items[k], "evp:", 4) == 0) {
			if (!(a = custom_row(NULL, items[k] + 4, err, errlen)))
				goto out;
			if (o->nalgos < ALGO_MAX)
				o->algos[o->nalgos++] = a;
			continue;
		}
		a = algo_find(items[k]);
		if (!a) {
			snprintf(err, errlen, "algorithm '%s' not known, choices are: %s",
				 items[k], accepted);
			goto out;
		}
		for (i = 0; i < o->nalgos && o->algos[i] != a; i++)
			;
		if (i == o->nalgos && o->nalgos < ALGO_MAX)
			o->algos[o->nalgos++] = a;
	}
	ret = 0;
out:
	list_free(items, n);
	return ret;
}

/* -k is checked against the algorithms it applies to, in prepare(). */
static int parse_bits(const char *text, void *opts, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	((struct opts *)opts)->key = text;
	return 0;
}

static bool is_rsa_row(const struct algo *a)
{
	return a->kind == ALGO_SIGN && strcmp(a->evp_name, "RSA") == 0;
}

/* An ECDSA or ECDH row: -k names its curve. */
static bool on_curve(const struct algo *a)
{
	return a->group && strncmp(a->group, "P-", 2) == 0;
}

/* -k as RSA bits: one of rsa_bits. */
static bool rsa_key(struct opts *o)
{
	char ignored[128];
	uint64_t v = 0;
	size_t c;

	if (num_parse_u64("bits", o->key, 1, 65536, &v, ignored, sizeof(ignored)) == 0)
		for (c = 0; c < nrsa_bits; c++)
			if (v == rsa_bits[c]) {
				o->bits = (unsigned)v;
				return true;
			}
	return false;
}

/* The row of curve -k in the family of curve row *A ("ecdsa"); false with
 * the message naming the family's curves when it has none of that name. */
static bool curve_row(const char *key, const struct algo **a, char *err, size_t errlen)
{
	static const char *const curves[] = { "p256", "p384", "p521" };
	int fam = (int)strcspn((*a)->name, "-");
	const struct algo *pick = NULL;
	char name[64], allowed[64] = "";
	size_t c;

	for (c = 0; c < sizeof(curves) / sizeof(curves[0]); c++) {
		snprintf(name, sizeof(name), "%.*s-%s", fam, (*a)->name, curves[c]);
		if (!algo_find(name))
			continue;
		snprintf(allowed + strlen(allowed), sizeof(allowed) - strlen(allowed), "%s%s",
			 allowed[0] ? ", " : "", curves[c]);
		if (strcmp(key, curves[c]) == 0)
			pick = algo_find(name);
	}
	if (!pick) {
		snprintf(err, errlen, "bits: '%s' is not a curve %.*s takes, allowed %s", key, fam,
			 (*a)->name, allowed);
		return false;
	}
	*a = pick;
	return true;
}

/* An FFDH row (RFC 7919's groups): -k names its bits. */
static bool ffdh_group(const struct algo *a)
{
	return a->group && strncmp(a->group, "ffdhe", 5) == 0;
}

/* -k as FFDH bits: the row of that group, or NULL. */
static const struct algo *ffdh_key(const char *key)
{
	char name[32];
	const struct algo *a;

	if (!key[0] || strspn(key, "0123456789") != strlen(key) || strlen(key) > 8)
		return NULL;
	snprintf(name, sizeof(name), "ffdh%s", key);
	a = algo_find(name);
	return a && strcmp(a->name, name) == 0 ? a : NULL;
}

/* -k applies where it fits: RSA bits to rsa, FFDH bits to the ffdh rows
 * (the other rows keep their size, so one -k 2048 suits any -a), a curve
 * ("p384") to the ecdsa and ecdh rows. */
static int apply_key(struct opts *o, char *err, size_t errlen)
{
	const struct algo *group;
	bool rsa = false, curves = false;
	unsigned i;

	if (!o->key)
		return 0;
	group = ffdh_key(o->key);
	for (i = 0; group && i < o->nalgos; i++)
		if (ffdh_group(o->algos[i]))
			o->algos[i] = group;
	if (rsa_key(o) || group)
		return 0;
	for (i = 0; i < o->nalgos; i++) {
		rsa |= is_rsa_row(o->algos[i]);
		curves |= on_curve(o->algos[i]);
	}
	if (!curves || (rsa && o->key[0] != 'p')) {
		snprintf(err, errlen, "bits: '%s' is not a supported RSA key size, allowed 1024, 2048, 3072, 4096 (ffdh: 2048, 3072, 4096, 6144, 8192)",
			 o->key);
		return -1;
	}
	for (i = 0; i < o->nalgos; i++)
		if (on_curve(o->algos[i]) && !curve_row(o->key, &o->algos[i], err, errlen))
			return -1;
	return 0;
}

/* Sizes must suit every cipher asked for (CBC without padding). */
static int check_sizes(const struct opts *o, char *err, size_t errlen)
{
	unsigned i;
	int j;

	for (i = 0; i < o->nalgos; i++) {
		if (o->algos[i]->kind != ALGO_CIPHER || o->algos[i]->block < 2)
			continue;
		for (j = 0; j < o->nsizes; j++)
			if (o->sizes[j] % o->algos[i]->block) {
				snprintf(err, errlen,
					 "size: %llu is not a multiple of %s's %u-byte block (CBC without padding)",
					 (unsigned long long)o->sizes[j], o->algos[i]->label,
					 o->algos[i]->block);
				return -1;
			}
	}
	return 0;
}

/* What the table cannot check, before any work. */
static int prepare(void *opts_, int argc, char **argv, char *err, size_t errlen)
{
	struct opts *o = opts_;

	(void)argc;
	(void)argv;
	if ((!o->nalgos && !o->nmacs && parse_algos("all", o, err, errlen) < 0) ||
	    apply_key(o, err, errlen) < 0)
		return -1;
	for (unsigned i = 0; i < o->nmacs && o->nalgos < ALGO_MAX; i++)
		o->algos[o->nalgos++] = o->macs[i];
	if (o->be != &backend_evp && (ncustom || o->beo.nproviders || o->beo.propq || o->decrypt ||
				      o->aead || o->rekey || o->beo.stream || o->misalign)) {
		snprintf(err, errlen, "-a evp:NAME, --hmac, --cmac, --provider, --propquery, --decrypt, --aead, --rekey, --stream and --misalign are for -b evp");
		return -1;
	}
	if (!o->sizes)
		o->nsizes = num_parse_list("size", default_sizes, 1, MAX_SIZE, &o->sizes, err, errlen);
	if (o->nsizes < 0 || check_sizes(o, err, errlen) < 0)
		return -1;
	return 0;
}

/* The latency columns, from the merged and each worker's histogram. */
static int append_latency(struct results_row *row, const struct run_result *r)
{
	struct histogram **per = calloc(r->nworkers ? r->nworkers : 1, sizeof(*per));
	unsigned i;
	int ret;

	if (!per)
		return -1;
	for (i = 0; i < r->nworkers; i++)
		per[i] = r->w[i].lat;
	ret = worker_row_latency(row, r->lat, per, r->nworkers, r->lat_batch);
	free(per);
	return ret;
}

/* Each worker's bytes or operations, for its own cycles per unit: a new
 * array, or NULL when out of memory. */
static double *worker_work(const struct job *job, const struct run_result *r)
{
	double *work = calloc(r->nworkers ? r->nworkers : 1, sizeof(*work));
	unsigned i;

	for (i = 0; work && i < r->nworkers; i++)
		work[i] = (double)r->w[i].ops * (algo_per_op(job->algo) ? 1.0 : (double)job->size);
	return work;
}

/* The measurement's columns; the worker API fills the rest. */
static void set_columns(struct results_row *row, const struct opts *o, const struct run_env *env,
			const char *impl, const struct job *job, const struct run_result *r)
{
	bool sign = algo_per_op(job->algo);

	results_row_set(row, RC_ALGORITHM, "%s", algo_mode_label(job->algo, job->mode));
	results_row_set(row, RC_BACKEND, "%s", o->be->name);
	results_row_set(row, RC_IMPL, "%s", impl);
	results_row_set(row, RC_SIZE, "%zu", sign ? (size_t)job->bits : job->size);
	results_row_set(row, RC_SIZE_UNIT, sign ? "bits" : "bytes");
	if (!sign)
		results_row_set(row, RC_BYTES, "%.0f", (double)r->ops * (double)job->size);
	results_row_set(row, RC_OPS, "%llu", (unsigned long long)r->ops);
	results_row_set(row, RC_RATE, "%.6g", report_rate(job, r));
	results_row_set(row, RC_UNIT, "%s", unit_name(job->mode == MODE_SIGN ? UNIT_SIGN_S :
						     job->mode == MODE_VERIFY ? UNIT_VERIFY_S :
						     job->mode == MODE_DERIVE ? UNIT_DERIVE_S : UNIT_BYTES_S));
	results_row_set(row, RC_VERIFIED, "%s",
			!r->verified ? "no" : r->unchecked ? "unchecked" : "yes");
	results_row_set(row, RC_CHECKS, "%llu", (unsigned long long)r->checks);
	if (!r->verified)
		results_row_set(row, RC_NOTE, "%s", r->err);
	else if (r->unchecked)
		results_row_set(row, RC_NOTE, "%u of %u workers made no check", r->unchecked,
				r->nworkers);
	else if (env->nplan && r->nworkers > env->nplan)
		results_row_set(row, RC_NOTE, "wrapped: %u workers on %u planned PU%s", r->nworkers,
				env->nplan, env->nplan == 1 ? "" : "s");
	else if (r->lat && r->lat_batch > 1)
		results_row_set(row, RC_NOTE, "latency timed per batch of %llu operations, figures are per batch / %llu",
				(unsigned long long)r->lat_batch, (unsigned long long)r->lat_batch);
}

static int append_row(const char *path, const struct opts *o, const struct run_env *env,
		      const char *impl, const struct job *job, const struct run_result *r)
{
	struct worker_row wr = worker_row_of_result(PROG, env, &r->wr, r->wr.wall_s);
	struct results_row row;
	double *work = NULL;
	int ret = -1;

	wr.versions = impl;
	wr.status = r->verified ? 0 : 1;
	if (r->wr.worker_counts) {
		work = worker_work(job, r);
		if (!work) {
			msg_error(PROG, "out of memory for the per-worker counts");
			return -1;
		}
		wr.worker_work = work;
	}
	results_row_init(&row);
	set_columns(&row, o, env, impl, job, r);
	if (r->lat && append_latency(&row, r) < 0) {
		msg_error(PROG, "out of memory for the latency columns");
		goto out;
	}
	ret = workload_append_row(path, &row, &wr);
out:
	results_row_clear(&row);
	free(work);
	return ret;
}

/* One measurement; returns 0, 1 (failed), 2 (a bad test switch) or 128+N
 * (interrupted). */
static int measure(const struct opts *o, void *bectx, const struct run_env *env,
		   const char *impl, struct job *job, struct report *rep)
{
	struct run_params p = {
		.be = o->be, .bectx = bectx, .job = job, .nworkers = env->nthreads, .env = env,
		.seconds = o->seconds, .reps = o->reps, .fault_worker = -1, .kat_fault_worker = -1,
		.fail_worker = -1, .interrupted = &interrupted, .latency = o->latency,
		.latency_batch = o->latency_batch,
	};
	/* Test-only fault switches: corrupted timed outputs (from the start, or
	 * already in the known-answer test), a failing call. */
	const char *fault = getenv("T2ACCEL_FAULT_WORKER"), *fail = getenv("T2ACCEL_FAIL_WORKER");
	const char *kat_fault = getenv("T2ACCEL_FAULT_KAT");
	/* ... limited to one measurement ("rsa-verify") when this is set. */
	const char *fault_only = getenv("T2ACCEL_FAULT_ONLY");
	struct run_result r;
	char err[512], size[64], label[128];
	int ret = 0;

	if (interrupted)
		return 128 + interrupted;
	snprintf(label, sizeof(label), "%s %s", algo_mode_label(job->algo, job->mode),
		 report_size_text(job, size, sizeof(size)));
	p.label = label;
	if (fault_only && strcmp(fault_only, algo_mode_label(job->algo, job->mode)))
		fault = kat_fault = NULL;
	if (fault && num_parse_int_env("T2ACCEL_FAULT_WORKER", fault, &p.fault_worker) < 0)
		return 2;
	if (fail && num_parse_int_env("T2ACCEL_FAIL_WORKER", fail, &p.fail_worker) < 0)
		return 2;
	if (kat_fault && num_parse_int_env("T2ACCEL_FAULT_KAT", kat_fault, &p.kat_fault_worker) < 0)
		return 2;
	if (o->be->job_init(bectx, job, err, sizeof(err)) < 0) {
		msg_error(PROG, "%s: %s", algo_mode_label(job->algo, job->mode), err);
		return 1;
	}
	if (runner_run(&p, &r) < 0 && !r.interrupted) {
		msg_error(PROG, "failed: %s %s: %s", algo_mode_label(job->algo, job->mode),
			  report_size_text(job, err, sizeof(err)), r.err);
		ret = 1;
	}
	report_add(rep, job, &r);
	if (!o->quiet)
		report_progress(stderr, job, &r);
	/* A measurement that never started (a worker failed to set up) is no
	 * row; one that ran and failed is, marked unverified. */
	if (r.interrupted)
		ret = 128 + interrupted;
	else if (r.started && o->results && append_row(o->results, o, env, impl, job, &r) < 0)
		ret = 1;
	o->be->job_fini(bectx, job);
	runner_result_free(&r);
	return ret;
}

/* Every measurement the options ask for, in order.  An algorithm the
 * backend lacks is named and makes the exit 3, unless -a all asked for
 * every algorithm here and some ran. */
static int run_all(const struct opts *o, void *bectx, const struct run_env *env,
		   const char *impl, struct report *rep)
{
	struct job job;
	unsigned i;
	int j, st, skipped = 0, ran = 0;
	char why[512], served[256];
	const char *provider;

	for (i = 0; i < o->nalgos; i++) {
		const struct algo *a = o->algos[i];
		const char *row_impl = impl;

		if (o->be->supports(bectx, a, why, sizeof(why)) != BE_OK) {
			msg_error(PROG, "skipping %s", why);
			report_skip(rep, a, why);
			skipped = 1;
			continue;
		}
		if (o->be->impl_of && o->be->impl_of(bectx, a, served, sizeof(served), &provider) == BE_OK)
			row_impl = served;
		ran = 1;
		if (algo_per_op(a)) {
			for (enum algo_mode m = algo_first_mode(a); m <= algo_last_mode(a); m++) {
				job = (struct job){ .algo = a, .mode = m,
						    .bits = a->key_len ? a->key_len : o->bits };
				if ((st = measure(o, bectx, env, row_impl, &job, rep)))
					return st;
			}
			continue;
		}
		for (j = 0; j < o->nsizes; j++) {
			bool sym = a->kind == ALGO_CIPHER || a->kind == ALGO_AEAD;

			job = (struct job){ .algo = a, .mode = MODE_ONE, .size = (size_t)o->sizes[j],
					    .decrypt = sym && o->decrypt, .misalign = o->misalign,
					    .tls = a->kind == ALGO_AEAD && o->aead,
					    .rekey = a->kind == ALGO_AEAD && o->rekey,
					    .stream = a->kind == ALGO_AEAD && o->beo.stream };
			if ((st = measure(o, bectx, env, row_impl, &job, rep)))
				return st;
		}
	}
	return skipped && (!o->all || !ran) ? BE_SKIP : 0;
}

/* The rows made on the command line, from what the backend offers; their
 * sizes checked as the table's were: 0, or the exit status. */
static int resolve_custom(struct opts *o, void *bectx)
{
	char err[512];
	unsigned i;
	int st;

	for (i = 0; i < ncustom; i++)
		if ((st = o->be->resolve(bectx, &custom[i], err, sizeof(err))) != BE_OK) {
			msg_error(PROG, "%s", err);
			return st;
		}
	if (check_sizes(o, err, sizeof(err)) < 0) {
		msg_error(PROG, "%s", err);
		return BE_USAGE;
	}
	return 0;
}

/* The backend set up, every measurement, the table: the exit status. */
static int run(void *opts_, const struct run_env *env)
{
	struct opts *o = opts_;
	struct report rep = { 0 };
	void *bectx = NULL;
	char err[512], impl[256];
	int ret;

	/* The main thread only supervises: threadrun --monitor sees it so. */
	worker_main_thread(PROG);
	catch_stop_signals();
	ret = o->be->setup(&bectx, &o->beo, err, sizeof(err));
	if (ret != BE_OK) {
		msg_error(PROG, "%s", err);
		goto out;
	}
	if (interrupted) {
		ret = 128 + interrupted;
		msg_error(PROG, "interrupted by signal %d before the first measurement", ret - 128);
		goto out;
	}
	if ((ret = resolve_custom(o, bectx)))
		goto out;
	o->be->describe(bectx, impl, sizeof(impl));
	report_init(&rep, o->sizes, o->nsizes, o->bits, env->nthreads);
	if (!o->quiet)
		report_header(stdout, env, o->be->name, impl, o->reps, o->seconds);
	ret = run_all(o, bectx, env, impl, &rep);
	/* That the table reached its reader is checked at exit
	 * (datafile_stdio_init), after the token is gone. */
	report_print(stdout, &rep, o->quiet);
	if (interrupted && ret < 128)
		ret = 128 + interrupted;
	if (ret > 128)
		msg_error(PROG, "interrupted by signal %d; measurements finished before it are kept",
			  ret - 128);
	report_fini(&rep);
out:
	if (bectx)
		o->be->teardown(bectx);
	return ret;
}

/* --list: the table, each row with the provider that serves it (the EVP
 * backend's, after any --provider and --propquery given before --list). */
static void *list_ctx;

static const char *list_provider(const struct algo *a)
{
	const char *p = NULL;
	char impl[256];

	return list_ctx && backend_evp.impl_of(list_ctx, a, impl, sizeof(impl), &p) == BE_OK ? p : NULL;
}

/* --list: the table with its providers, or what the backend given before
 * it (-b pkcs11) offers. */
static int list_algos(FILE *out)
{
	char err[512];
	int ret;

	if (opts.be->list) {
		if ((ret = opts.be->list(&opts.beo, out, err, sizeof(err))) != BE_OK)
			msg_error(PROG, "%s", err);
		return ret;
	}
	if (backend_evp.setup(&list_ctx, &opts.beo, err, sizeof(err)) != BE_OK) {
		msg_error(PROG, "warning: %s; the PROVIDER column says -", err);
		list_ctx = NULL;
	}
	algo_list(out, list_provider);
	if (list_ctx)
		backend_evp.teardown(list_ctx);
	return 0;
}

static const struct workload t2accel = {
	.name = PROG, WORKLOAD_OPTIONS(options), .opts = &opts, .usage = "[options]",
	.help_after = help_after, .list = list_algos, .prepare = prepare, .run = run,
};

int main(int argc, char **argv)
{
	int ret;

	/* First: OpenSSL takes its allocator only before its first allocation. */
	heap_align_openssl();
	ret = workload_main(&t2accel, argc, argv);

	free(opts.sizes);
	return ret;
}

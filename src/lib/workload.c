/* The workload skeleton (workload.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datafile.h"
#include "exitguard.h"
#include "version.h"
#include "workload.h"

/* The shared actions: 0 when done (exit 0), else the exit status. */
static int action(const struct workload *w, struct opt_parser *p, int id, int argc, char **argv)
{
	switch (id) {
	case WORKLOAD_HELP:
		opt_help(p, stdout, w->usage, w->help_after);
		return 0;
	case WORKLOAD_VERSION:
		version_print(stdout, w->name);
		if (w->version)
			w->version(stdout);
		return 0;
	case WORKLOAD_LIST:
		return w->list(stdout);
	case WORKLOAD_CONFIG:
		return opt_print_config(p, argc, argv, "results") == 0 ? 0 : 2;
	default:
		return 2;
	}
}

/* Options, operands and the config: -1 to go on (*CONFIG set), else the
 * exit status. */
static int parse(const struct workload *w, int argc, char **argv, char **config)
{
	struct opt_parser p;
	char err[512] = "";
	int c, ret = 2;

	if (opt_init(&p, w->name, w->options, w->noptions, 0) < 0)
		return 1;
	c = opt_parse(&p, argc, argv, w->opts);
	if (c != OPT_END) {
		ret = action(w, &p, c, argc, argv);
		goto out;
	}
	if (opt_check(&p) < 0)
		goto out;
	if (argc - optind > (int)w->operands) {
		snprintf(err, sizeof(err), "unexpected argument '%s', see '%s --help'",
			 argv[optind + w->operands], w->name);
		goto bad;
	}
	c = w->prepare ? w->prepare(w->opts, argc - optind, argv + optind, err, sizeof(err)) : 0;
	if (c == WORKLOAD_DONE)
		ret = 0;
	if (c)
		goto bad;
	*config = opt_config(&p, argc, argv);
	if (!*config) {
		snprintf(err, sizeof(err), "out of memory");
		goto bad;
	}
	ret = -1;
	goto out;
bad:
	if (*err)
		msg_error(w->name, "%s", err);
out:
	opt_fini(&p);
	return ret;
}

/* The results row's value in the options struct. */
static const char **results_of(const struct workload *w)
{
	size_t i;

	for (i = 0; i < w->noptions; i++)
		if (w->options[i].long_name && !strcmp(w->options[i].long_name, "results"))
			return (const char **)((char *)w->opts + w->options[i].dest);
	return NULL;
}

/* threadrun's environment, the run's config, the results file checked. */
static int load_env(const struct workload *w, struct run_env *env, char **config)
{
	const char **results = results_of(w);
	char err[512];

	if (run_env_load(env, w->default_workers ? w->default_workers() : 1, err, sizeof(err)) < 0)
		goto bad;
	run_env_set_config(env, *config);
	*config = NULL;
	if (results && !*results)
		*results = env->results;
	if (results && *results && results_check(*results, err, sizeof(err)) < 0)
		goto bad;
	return 0;
bad:
	msg_error(w->name, "%s", err);
	return -1;
}

int workload_append_row(const char *path, struct results_row *row, const struct worker_row *wr)
{
	char err[512];
	int ret = worker_row_append(path, row, wr, err, sizeof(err));

	if (ret < 0)
		msg_error(wr->workload, "%s", err);
	results_row_clear(row);
	return ret;
}

int workload_main(const struct workload *w, int argc, char **argv)
{
	struct run_env env = { 0 };
	char *config = NULL;
	int ret;

	datafile_stdio_init(w->name);
	exit_guard_arm(w->name);
	ret = parse(w, argc, argv, &config);
	if (ret >= 0)
		goto out;
	ret = 2;
	if (load_env(w, &env, &config) == 0)
		ret = w->run(w->opts, &env);
	run_env_free(&env);
out:
	free(config);
	return exit_guard_done(ret);
}

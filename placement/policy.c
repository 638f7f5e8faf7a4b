/* Policy names and CPU lists: the text a user writes, parsed and checked. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement_private.h"

/* Highest OS index a CPU list may name (Linux's own limit is 8192 today). */
#define PL_MAX_OS_INDEX 65535u

static const struct policy_form {
	const char *prefix;     /* the name, or the prefix of a form with a value */
	enum pl_policy_kind kind;
	bool takes_value;
} policy_forms[] = {
	{ "compact", PL_POLICY_COMPACT, false },
	{ "scatter", PL_POLICY_SCATTER, false },
	{ "none",    PL_POLICY_NONE,    false },
	{ "c",       PL_POLICY_PERCORE, true  },
	{ "list:",   PL_POLICY_LIST,    true  },
};

const char *pl_policy_choices(void)
{
	return "compact, scatter, none, cK (K strands per core, e.g. c2), list:CPUS (e.g. "
	       "list:0,8,16-23), hwloc locations (core:0-3), OpenMP's close, spread, primary[:cores], "
	       "likwid-pin's S0:0-3, E:N:8:1:2 (see --help)";
}

/* OpenMP's words: OMP_PROC_BIND's and OMP_PLACES's. */
static const struct { const char *name; enum pl_omp_bind bind; } omp_binds[] = {
	{ "close", PL_OMP_CLOSE }, { "spread", PL_OMP_SPREAD },
	{ "primary", PL_OMP_PRIMARY }, { "master", PL_OMP_PRIMARY },
};
static const char *const omp_places[] = { "threads", "cores", "sockets" };
static const char *const omp_bind_names[] = { "close", "spread", "primary" };

static const struct pl_spelling spellings[] = {
	{ "hwloc-bind", "core:0-3",                       "core:0-3",        "the PUs of cores 0-3 (logical indices), core by core" },
	{ "hwloc-bind", "package:1.core:0-1",             "same",            "the PUs of cores 0-1 of package 1" },
	{ "hwloc-bind", "numa:0",                         "same",            "the PUs of NUMA node 0" },
	{ "OpenMP",     "PROC_BIND=close PLACES=cores",   "close:cores",     "a core each in order, packed as libgomp packs past the last" },
	{ "OpenMP",     "PROC_BIND=spread PLACES=cores",  "spread:cores",    "cores spread evenly, as libgomp's subpartitions" },
	{ "OpenMP",     "PROC_BIND=spread",               "spread",          "spread:threads (libgomp's default places): PUs spread evenly" },
	{ "OpenMP",     "PROC_BIND=primary PLACES=sockets", "primary:sockets", "(or master:) every worker on the first socket's PUs" },
	{ "likwid-pin", "-c 0-3",                         "0-3",             "list:0-3, OS indices" },
	{ "likwid-pin", "-c N:0-3",                       "N:0-3",           "indices 0-3 of the node's PUs, physical cores first" },
	{ "likwid-pin", "-c S0:0-3",                      "S0:0-3",          "the same in socket (package) 0; L:S0:0-3 alike" },
	{ "likwid-pin", "-c M1:0-3",                      "M1:0-3",          "the same in NUMA domain 1" },
	{ "likwid-pin", "-c E:N:8:1:2",                   "E:N:8:1:2",       "COUNT 8, CHUNK 1 every STRIDE 2 PUs of N in logical order" },
	{ "likwid-pin", "-c S:scatter",                   "S:scatter",       "the sockets in turn, physical cores first (M:, N: alike)" },
	{ "likwid-pin", "-c S0:0-1@S1:0-1",               "same",            "expressions one after the other" },
	{ "likwid-pin", "-c C0:0-3",                      "(none)",          "cache domains: threadrun reads no caches" },
};

const struct pl_spelling *pl_policy_spellings(size_t *n)
{
	*n = sizeof(spellings) / sizeof(spellings[0]);
	return spellings;
}

/* OpenMP's BIND[:PLACES]: 1 when TEXT is one, 0 when it is not, -1 for a
 * bind word with bad places. */
static int parse_openmp(const char *text, struct pl_policy *policy, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text), i;

	for (i = 0; i < sizeof(omp_binds) / sizeof(omp_binds[0]); i++)
		if (strlen(omp_binds[i].name) == len && strncmp(text, omp_binds[i].name, len) == 0)
			break;
	if (i == sizeof(omp_binds) / sizeof(omp_binds[0]))
		return 0;
	policy->kind = PL_POLICY_OPENMP;
	policy->bind = omp_binds[i].bind;
	policy->places = PL_OMP_THREADS;
	if (!colon)
		return 1;
	for (i = 0; i < sizeof(omp_places) / sizeof(omp_places[0]); i++)
		if (strcmp(colon + 1, omp_places[i]) == 0) {
			policy->places = (enum pl_omp_places)i;
			return 1;
		}
	snprintf(err, errlen, "policy '%s': OpenMP places '%s' not known, choices are: threads, cores, sockets",
		 text, colon + 1);
	return -1;
}

/* A CPU set that starts with an hwloc location ("core:0-3"). */
static bool starts_location(const char *text)
{
	const char *colon = strchr(text, ':');
	union hwloc_obj_attr_u attr;
	hwloc_obj_type_t type;
	char word[32];

	if (!colon || colon == text || (size_t)(colon - text) >= sizeof(word))
		return false;
	memcpy(word, text, (size_t)(colon - text));
	word[colon - text] = '\0';
	return hwloc_type_sscanf(word, &type, &attr, sizeof(attr)) == 0;
}

bool pl_policy_takes_list(const char *text)
{
	return strncmp(text, "list:", 5) == 0 || isdigit((unsigned char)*text) ||
	       (pl_likwid_looks(text) && strchr(text, ':') && strncmp(text, "E:", 2) != 0 &&
		!strstr(text, ":scatter")) ||
	       (!pl_likwid_looks(text) && starts_location(text));
}

/* Keep SPEC, the policy's text TEXT or part of it: 1, or -1 with a message. */
static int keep_spec(struct pl_policy *policy, const char *text, const char *spec, char *err,
		     size_t errlen)
{
	policy->spec = strdup(spec);
	if (policy->spec)
		return 1;
	snprintf(err, errlen, "policy '%s': out of memory", text);
	return -1;
}

/* A CPU set as a list policy: OS indices only are kept as a list, one
 * with hwloc locations as its text (resolved on the topology).  1, or -1
 * with a message. */
static int parse_set(const char *text, const char *value, struct pl_policy *policy, char *err,
		     size_t errlen)
{
	int n;

	policy->kind = PL_POLICY_LIST;
	if (strchr(value, ':'))
		return pl_cpus_check(value, err, errlen) < 0 ? -1 :
		       keep_spec(policy, text, value, err, errlen);
	n = pl_cpulist_parse(value, &policy->list, err, errlen);
	if (n < 0)
		return -1;
	policy->nlist = (unsigned)n;
	return 1;
}

/* The project's number syntax (placement_private.h). */
long pl_parse_index(const char **p, unsigned long max)
{
	const char *s = *p;
	unsigned long v = 0;
	bool over = false;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > max)
			over = true;
		else
			v = v * 10 + (unsigned long)(*s - '0');
	}
	*p = s;
	return over || v > max ? -2 : (long)v;
}

/* Append A..B to L, counting down when B < A. */
static int add_range(struct pl_ulist *l, long a, long b)
{
	long step = b >= a ? 1 : -1;

	for (long v = a;; v += step) {
		if (pl_ulist_add(l, (unsigned)v) < 0)
			return -1;
		if (v == b)
			return 0;
	}
}

/* The message for the CPU list TEXT, not valid at P. */
static void bad_cpulist(const char *text, const char *p, char *err, size_t errlen)
{
	if ((*p == ',' && (p == text || p[-1] == ',')) || (!*p && p > text && p[-1] == ','))
		snprintf(err, errlen, "CPU list '%s' has an empty element at character %zu",
			 text, (size_t)(p - text) + 1);
	else
		snprintf(err, errlen,
			 "CPU list '%s' is not valid, accepted: OS indices 0..%u and ranges, comma-separated (e.g. 0,8,16-23)",
			 text, PL_MAX_OS_INDEX);
}

int pl_cpulist_parse(const char *text, unsigned **out, char *err, size_t errlen)
{
	struct pl_ulist l = { 0 };
	const char *p = text, *start;
	long a, b;

	*out = NULL;
	for (;; p++) {
		start = p;
		a = b = pl_parse_index(&p, PL_MAX_OS_INDEX);
		if (a >= 0 && *p == '-') {
			start = ++p;
			b = pl_parse_index(&p, PL_MAX_OS_INDEX);
		}
		if (b == -2) {
			snprintf(err, errlen, "CPU list '%s': %.*s is above the highest OS index allowed, %u",
				 text, (int)(p - start), start, PL_MAX_OS_INDEX);
			goto fail;
		}
		if (b < 0)
			goto bad;
		if (add_range(&l, a, b) < 0) {
			if (errno == E2BIG)
				snprintf(err, errlen, "CPU list '%s' names more than %u PUs", text, PL_MAX_LIST);
			else
				snprintf(err, errlen, "CPU list '%s': out of memory", text);
			goto fail;
		}
		if (!*p)
			break;
		if (*p != ',')
			goto bad;
	}
	*out = l.v;
	return (int)l.n;
bad:
	bad_cpulist(text, p, err, errlen);
fail:
	free(l.v);
	errno = EINVAL;
	return -1;
}

/* One of policy_forms: 1 when TEXT is one (parsed), 0 when it is not, -1
 * with a message. */
static int parse_form(const char *text, struct pl_policy *policy, char *err, size_t errlen)
{
	const struct policy_form *f;
	const char *value;
	size_t i;
	long k;

	for (i = 0; i < sizeof(policy_forms) / sizeof(policy_forms[0]); i++) {
		f = &policy_forms[i];
		if (f->takes_value ? strncmp(text, f->prefix, strlen(f->prefix)) != 0 :
				     strcmp(text, f->prefix) != 0)
			continue;
		value = text + strlen(f->prefix);
		policy->kind = f->kind;
		if (!f->takes_value)
			return 1;
		if (f->kind != PL_POLICY_PERCORE)
			return parse_set(text, value, policy, err, errlen);
		if (!isdigit((unsigned char)*value))
			continue;  /* "cores" and the like are unknown names */
		k = pl_parse_index(&value, PL_MAX_WORKERS);
		if (k < 1 || *value) {
			snprintf(err, errlen, "policy '%s': strands per core must be a number 1..%u",
				 text, PL_MAX_WORKERS);
			return -1;
		}
		policy->per_core = (unsigned)k;
		return 1;
	}
	return 0;
}

int pl_policy_parse(const char *text, struct pl_policy *policy, char *err,
		    size_t errlen)
{
	int r;

	memset(policy, 0, sizeof(*policy));
	if ((r = parse_form(text, policy, err, errlen)) == 0)
		r = parse_openmp(text, policy, err, errlen);
	if (r == 0 && pl_likwid_looks(text)) {
		policy->kind = PL_POLICY_LIKWID;
		r = pl_likwid_check(text, err, errlen) < 0 ? -1 :
		    keep_spec(policy, text, text, err, errlen);
	}
	/* likwid-pin's OS indices (-c 0-3) and hwloc's locations (core:0-3). */
	if (r == 0 && (isdigit((unsigned char)*text) || starts_location(text)))
		r = parse_set(text, text, policy, err, errlen);
	if (r == 0)
		snprintf(err, errlen, "policy '%s' not known, choices are: %s", text,
			 pl_policy_choices());
	if (r > 0)
		return 0;
	pl_policy_clear(policy);
	errno = EINVAL;
	return -1;
}

int pl_policy_name(const struct pl_policy *policy, char *buf, size_t len)
{
	size_t used;
	unsigned i;
	int n = 0;

	switch (policy->kind) {
	case PL_POLICY_COMPACT: n = snprintf(buf, len, "compact"); break;
	case PL_POLICY_SCATTER: n = snprintf(buf, len, "scatter"); break;
	case PL_POLICY_NONE:    n = snprintf(buf, len, "none"); break;
	case PL_POLICY_PERCORE: n = snprintf(buf, len, "c%u", policy->per_core); break;
	case PL_POLICY_OPENMP:
		n = snprintf(buf, len, "%s:%s", omp_bind_names[policy->bind], omp_places[policy->places]);
		break;
	case PL_POLICY_LIKWID: n = snprintf(buf, len, "%s", policy->spec); break;
	case PL_POLICY_LIST:
		if (policy->spec) {
			n = snprintf(buf, len, "list:%s", policy->spec);
			break;
		}
		n = snprintf(buf, len, "list:");
		for (i = 0; i < policy->nlist && n >= 0 && (size_t)n < len; i++) {
			used = (size_t)n;
			n += snprintf(buf + used, len - used, "%s%u", i ? "," : "",
				      policy->list[i]);
		}
		break;
	}
	if (n < 0 || (size_t)n >= len) {
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

char *pl_policy_strdup(const struct pl_policy *policy)
{
	/* "list:" and at most 10 digits and a comma per entry. */
	size_t len = 32 + (policy->kind == PL_POLICY_LIST ? (size_t)policy->nlist * 11 : 0) +
		     (policy->spec ? strlen(policy->spec) : 0);
	char *buf = malloc(len);

	if (buf && pl_policy_name(policy, buf, len) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void pl_policy_clear(struct pl_policy *policy)
{
	free(policy->list);
	free(policy->spec);
	memset(policy, 0, sizeof(*policy));
}

/* Policy names and CPU lists: the text a user writes, parsed and checked. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

/* Highest OS index a CPU list may name (Linux's own limit is 8192 today). */
#define PL_MAX_OS_INDEX 65535u
/* Most entries one CPU list may expand to. */
#define PL_MAX_LIST 65536u

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
	return "compact, scatter, none, cK (K strands per core, e.g. c2), list:CPUS (e.g. list:0,8,16-23)";
}

/* Parse an unsigned decimal at *P (digits only: no sign or space, as every
 * number of the project), advancing it past the digits; -1 when there is
 * none, -2 when it is above MAX, however long. */
static long parse_index(const char **p, unsigned long max)
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

int pl_cpulist_parse(const char *text, unsigned **out, char *err, size_t errlen)
{
	const char *p = text;
	unsigned *list = NULL;
	size_t n = 0;
	const char *start;
	long a, b, step, v;

	*out = NULL;
	if (!*p)
		goto bad;
	for (;;) {
		start = p;
		a = parse_index(&p, PL_MAX_OS_INDEX);
		if (a == -2)
			goto too_big;
		if (a < 0)
			goto bad;
		b = a;
		if (*p == '-') {
			start = ++p;
			b = parse_index(&p, PL_MAX_OS_INDEX);
			if (b == -2)
				goto too_big;
			if (b < 0)
				goto bad;
		}
		step = b >= a ? 1 : -1;
		if (n + (size_t)labs(b - a) + 1 > PL_MAX_LIST) {
			snprintf(err, errlen, "CPU list '%s' names more than %u PUs", text,
				 PL_MAX_LIST);
			goto fail;
		}
		unsigned *grown = realloc(list, (n + (size_t)labs(b - a) + 1) * sizeof(*list));
		if (!grown) {
			snprintf(err, errlen, "CPU list '%s': out of memory", text);
			goto fail;
		}
		list = grown;
		for (v = a;; v += step) {
			list[n++] = (unsigned)v;
			if (v == b)
				break;
		}
		if (*p == '\0')
			break;
		if (*p != ',')
			goto bad;
		p++;
	}
	*out = list;
	return (int)n;
too_big:
	snprintf(err, errlen, "CPU list '%s': %.*s is above the highest OS index allowed, %u",
		 text, (int)(p - start), start, PL_MAX_OS_INDEX);
	goto fail;
bad:
	if ((*p == ',' && (p == text || p[-1] == ',')) || (!*p && p > text && p[-1] == ',')) {
		snprintf(err, errlen, "CPU list '%s' has an empty element at character %zu",
			 text, (size_t)(p - text) + 1);
		goto fail;
	}
	snprintf(err, errlen,
		 "CPU list '%s' is not valid, accepted: OS indices 0..%u and ranges, comma-separated (e.g. 0,8,16-23)",
		 text, PL_MAX_OS_INDEX);
fail:
	free(list);
	errno = EINVAL;
	return -1;
}

int pl_policy_parse(const char *text, struct pl_policy *policy, char *err,
		    size_t errlen)
{
	const struct policy_form *f;
	const char *value;
	size_t i;
	long k;
	int n;

	memset(policy, 0, sizeof(*policy));
	for (i = 0; i < sizeof(policy_forms) / sizeof(policy_forms[0]); i++) {
		f = &policy_forms[i];
		if (!f->takes_value) {
			if (strcmp(text, f->prefix) == 0) {
				policy->kind = f->kind;
				return 0;
			}
			continue;
		}
		if (strncmp(text, f->prefix, strlen(f->prefix)) != 0)
			continue;
		value = text + strlen(f->prefix);
		policy->kind = f->kind;
		if (f->kind == PL_POLICY_PERCORE) {
			if (!isdigit((unsigned char)*value))
				continue;  /* "cores" and the like are unknown names */
			k = parse_index(&value, PL_MAX_WORKERS);
			if (k < 1 || *value) {
				snprintf(err, errlen,
					 "policy '%s': strands per core must be a number 1..%u",
					 text, PL_MAX_WORKERS);
				errno = EINVAL;
				return -1;
			}
			policy->per_core = (unsigned)k;
			return 0;
		}
		n = pl_cpulist_parse(value, &policy->list, err, errlen);
		if (n < 0)
			return -1;
		policy->nlist = (unsigned)n;
		return 0;
	}
	snprintf(err, errlen, "policy '%s' not known, choices are: %s", text,
		 pl_policy_choices());
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
	case PL_POLICY_LIST:
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
	size_t len = 32 + (policy->kind == PL_POLICY_LIST ? (size_t)policy->nlist * 11 : 0);
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
	memset(policy, 0, sizeof(*policy));
}

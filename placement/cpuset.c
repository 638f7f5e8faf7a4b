/*
 * CPU sets as users write them: OS indices ("0,8,16-23") and hwloc
 * locations as hwloc-calc reads them ("core:0-3", "package:1.core:0-1"),
 * read once for the syntax (no topology) and once to resolve them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement_private.h"

/* The highest logical index a location may name. */
#define MAX_LOGICAL 65535u

#define CPUS_ACCEPTED "OS indices and ranges (0,8,16-23) or hwloc locations TYPE:INDEX[.TYPE:INDEX] " \
		      "(core:0-3, pu:0, package:1.core:0-1, numa:0; INDEX is N, N-M, N-, N:C, all, odd or even)"

/* One level of a location: its type and which of the objects it counts. */
struct level {
	hwloc_obj_type_t type;
	char name[32];          /* the type as written */
	enum { IDX_RANGE, IDX_ALL, IDX_ODD, IDX_EVEN } how;
	unsigned first, last;   /* IDX_RANGE; last UINT_MAX: to the end */
	bool open;              /* N-: to the last object */
};

int pl_ulist_add(struct pl_ulist *l, unsigned v)
{
	unsigned *grown;

	if (l->n == l->cap) {
		if (l->cap >= PL_MAX_LIST) {
			errno = E2BIG;
			return -1;
		}
		l->cap = l->cap ? l->cap * 2 : 16;
		grown = realloc(l->v, l->cap * sizeof(*l->v));
		if (!grown)
			return -1;
		l->v = grown;
	}
	l->v[l->n++] = v;
	return 0;
}

/* Types with PUs below them: not I/O devices, not Misc. */
static bool cpu_type(hwloc_obj_type_t t)
{
	return !hwloc_obj_type_is_io(t) && t != HWLOC_OBJ_MISC;
}

/* The INDEX of a level at *P: N, N-M, N-, N:C, all, odd or even; -1 when
 * it is none of them, -2 for a range that goes down. */
static int parse_index(const char **p, struct level *lv)
{
	const char *s = *p;
	long a, b;

	lv->open = false;
	if (strncmp(s, "all", 3) == 0 || strncmp(s, "odd", 3) == 0 || strncmp(s, "even", 4) == 0) {
		lv->how = *s == 'a' ? IDX_ALL : *s == 'o' ? IDX_ODD : IDX_EVEN;
		*p = s + (*s == 'e' ? 4 : 3);
		return 0;
	}
	lv->how = IDX_RANGE;
	a = b = pl_parse_index(&s, MAX_LOGICAL);
	if (a < 0)
		return -1;
	if (*s == '-') {
		s++;
		if (*s == '\0' || *s == '.' || *s == ',')
			lv->open = true;
		else if ((b = pl_parse_index(&s, MAX_LOGICAL)) < 0)
			return -1;
	} else if (*s == ':') {
		s++;
		b = pl_parse_index(&s, MAX_LOGICAL);
		if (b < 1)
			return -1;
		b = a + b - 1;
	}
	lv->first = (unsigned)a;
	lv->last = (unsigned)b;
	*p = s;
	return b < a ? -2 : 0;
}

/* Read one level "TYPE:INDEX" of the location at *P (up to '.', ',' or the
 * end); -1 with a message naming ELEM. */
static int parse_level(const char **p, const char *elem, size_t elen, struct level *lv,
		       char *err, size_t errlen)
{
	const char *s = *p, *colon = strchr(s, ':');
	size_t tl = colon ? (size_t)(colon - s) : 0;
	union hwloc_obj_attr_u attr;
	int r;

	if (!tl || tl >= sizeof(lv->name) || memchr(s, ',', tl) || memchr(s, '.', tl)) {
		snprintf(err, errlen, "CPU set '%.*s' is not valid, accepted: %s", (int)elen, elem,
			 CPUS_ACCEPTED);
		return -1;
	}
	memcpy(lv->name, s, tl);
	lv->name[tl] = '\0';
	if (hwloc_type_sscanf(lv->name, &lv->type, &attr, sizeof(attr)) < 0 || !cpu_type(lv->type)) {
		snprintf(err, errlen,
			 "CPU set '%.*s': '%s' is not an hwloc object type, accepted: pu, core, package (socket), numa (node), machine, die, group, l1..l3",
			 (int)elen, elem, lv->name);
		return -1;
	}
	s = colon + 1;
	r = parse_index(&s, lv);
	if (r == -2) {
		snprintf(err, errlen,
			 "CPU set '%.*s': range %u-%u of %s goes down, give the lower logical index first",
			 (int)elen, elem, lv->first, lv->last, lv->name);
		return -1;
	}
	if (r < 0 || (*s != '\0' && *s != '.' && *s != ',')) {
		snprintf(err, errlen,
			 "CPU set '%.*s': index of %s not valid, accepted: N, N-M, N-, N:C (logical indices 0..%u), all, odd or even",
			 (int)elen, elem, lv->name, MAX_LOGICAL);
		return -1;
	}
	*p = s;
	return 0;
}

/* Read the levels of the location ELEM (ELEN characters). */
static int parse_location(const char *elem, size_t elen, struct level *lv, unsigned *nlv,
			  char *err, size_t errlen)
{
	const char *p = elem;

	*nlv = 0;
	for (;;) {
		if (*nlv == PL_MAX_LEVELS) {
			snprintf(err, errlen, "CPU set '%.*s': more than %u levels", (int)elen, elem,
				 PL_MAX_LEVELS);
			return -1;
		}
		if (parse_level(&p, elem, elen, &lv[(*nlv)++], err, errlen) < 0)
			return -1;
		if (*p != '.')
			return 0;
		p++;
	}
}

static bool selected(const struct level *lv, unsigned i)
{
	switch (lv->how) {
	case IDX_ALL: return true;
	case IDX_ODD: return i % 2 == 1;
	case IDX_EVEN: return i % 2 == 0;
	case IDX_RANGE: return i >= lv->first && (lv->open || i <= lv->last);
	}
	return false;
}

/* Append the usable PUs of the objects LV[0] names inside PARENT, going
 * down the further levels (none left: PARENT's PUs); -1 with a message. */
static int resolve(pl_topology_t topo, const struct level *lv, unsigned nlv,
		   hwloc_const_cpuset_t parent, const char *elem, size_t elen, struct pl_ulist *out)
{
	hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo->topo);
	int depth = nlv ? hwloc_get_type_depth(topo->topo, lv->type) : 0;
	hwloc_obj_t obj = NULL;
	unsigned i = 0, want;
	int nobjs;

	if (!nlv) {
		if (pl_usable_pus_inside(topo, parent, out) == 0)
			return 0;
		pl_set_error(topo, errno, "CPU set '%.*s': %s", (int)elen, elem,
			     errno == E2BIG ? "too many PUs" : "out of memory");
		return -1;
	}
	if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE) {
		pl_set_error(topo, EINVAL, "CPU set '%.*s': %s %s in this topology", (int)elen, elem,
			     depth == HWLOC_TYPE_DEPTH_UNKNOWN ? "there is no" : "more than one level of",
			     lv->name);
		return -1;
	}
	nobjs = hwloc_get_nbobjs_by_depth(topo->topo, depth);
	for (int k = 0; k < nobjs; k++) {
		obj = hwloc_get_obj_by_depth(topo->topo, depth, (unsigned)k);
		/* The objects hwloc-calc counts: inside PARENT, and allowed. */
		if (!obj->cpuset || hwloc_bitmap_iszero(obj->cpuset) ||
		    !hwloc_bitmap_isincluded(obj->cpuset, parent) ||
		    !hwloc_bitmap_intersects(obj->cpuset, allowed))
			continue;
		if (selected(lv, i++) &&
		    resolve(topo, lv + 1, nlv - 1, obj->cpuset, elem, elen, out) < 0)
			return -1;
	}
	if (i == 0) {
		pl_set_error(topo, EINVAL, "CPU set '%.*s': there is no %s there", (int)elen, elem,
			     lv->name);
		return -1;
	}
	want = lv->open ? lv->first : lv->last;
	if (lv->how == IDX_RANGE && want >= i) {
		pl_set_error(topo, EINVAL,
			     "CPU set '%.*s': %s %u does not exist here, there %s %u %s%s (logical indices 0..%d)",
			     (int)elen, elem, lv->name, want, i == 1 ? "is" : "are", i, lv->name,
			     i == 1 ? "" : "s", (int)i - 1);
		return -1;
	}
	return 0;
}

/* Add the PU of OS index OS, checked on TOPO when there is one. */
static int add_os(pl_topology_t topo, const char *what, unsigned os, struct pl_ulist *out,
		  char *err, size_t errlen)
{
	if (topo && pl_check_pu(topo, os, what) < 0) {
		snprintf(err, errlen, "%s", topo->err);
		return -1;
	}
	if (pl_ulist_add(out, os) < 0) {
		snprintf(err, errlen, "%s: %s", what, errno == E2BIG ? "too many PUs" : "out of memory");
		return -1;
	}
	return 0;
}

/* Add the PUs of the OS-index list TEXT (pl_cpulist_parse's syntax). */
static int add_os_list(pl_topology_t topo, const char *what, const char *text,
		       struct pl_ulist *out, char *err, size_t errlen)
{
	unsigned *os = NULL;
	int n = pl_cpulist_parse(text, &os, err, errlen), ret = -1;

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (add_os(topo, what, os[i], out, err, errlen) < 0)
			goto out;
	ret = 0;
out:
	free(os);
	return ret;
}

/* Add the PUs of the location P (LEN characters of a CPU set): its
 * syntax checked, and resolved when there is a TOPO. */
static int add_location(pl_topology_t topo, const char *what, const char *p, size_t len,
			struct pl_ulist *out, char *err, size_t errlen)
{
	struct level lv[PL_MAX_LEVELS];
	size_t before = out->n;
	unsigned nlv;
	char *set = NULL;

	if (parse_location(p, len, lv, &nlv, err, errlen) < 0)
		return -1;
	if (!topo)
		return 0;
	if (resolve(topo, lv, nlv, hwloc_topology_get_complete_cpuset(topo->topo), p, len, out) < 0) {
		snprintf(err, errlen, "%s", topo->err);
		return -1;
	}
	if (out->n > before)
		return 0;
	hwloc_bitmap_list_asprintf(&set, topo->usable);
	snprintf(err, errlen,
		 "%s: %.*s has no usable PU here (cpuset, affinity or --allowed), allowed PUs are %s",
		 what, (int)len, p, set ? set : "?");
	free(set);
	return -1;
}

/* Walk TEXT element by element: OS elements through pl_cpulist_parse()
 * (checked against TOPO when there is one), locations through the levels
 * (resolved when TOPO is given). */
static int walk(pl_topology_t topo, const char *text, const char *what, struct pl_ulist *out,
		char *err, size_t errlen)
{
	const char *p = text, *end;
	char *elem;
	size_t len;
	int ret;

	if (!*text || !strchr(text, ':'))
		/* OS indices only: the CPU list, with its own messages. */
		return add_os_list(topo, what, text, out, err, errlen);
	for (;; p = end + 1) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0) {
			snprintf(err, errlen, "CPU set '%s' has an empty element at character %zu",
				 text, (size_t)(p - text) + 1);
			return -1;
		}
		if (!isdigit((unsigned char)*p)) {
			ret = add_location(topo, what, p, len, out, err, errlen);
		} else if ((elem = strndup(p, len))) {
			ret = add_os_list(topo, what, elem, out, err, errlen);
			free(elem);
		} else {
			ret = -1;
			snprintf(err, errlen, "CPU set: out of memory");
		}
		if (ret < 0 || !end)
			return ret;
	}
}

int pl_cpus_check(const char *text, char *err, size_t errlen)
{
	struct pl_ulist l = { 0 };
	int ret = walk(NULL, text, "CPU set", &l, err, errlen);

	free(l.v);
	if (ret < 0)
		errno = EINVAL;
	return ret;
}

int pl_topology_parse_cpus(pl_topology_t topo, const char *text, const char *what,
			   unsigned **out)
{
	struct pl_ulist l = { 0 };
	char err[sizeof(topo->err)];

	*out = NULL;
	topo->err[0] = '\0';
	if (walk(topo, text, what, &l, err, sizeof(err)) < 0) {
		pl_set_error(topo, EINVAL, "%s", err);
		free(l.v);
		return -1;
	}
	*out = l.v;
	return (int)l.n;
}

/*
 * Other tools' placement languages, mapped onto plans: OpenMP's binding
 * policies over its places (as libgomp assigns threads to places) and
 * likwid-pin's CPU expressions (as likwid's cpustring.c reads them).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement_private.h"

/* ---- OpenMP ---------------------------------------------------------- */

/* The places: each a run of usable PUs in logical order. */
struct places {
	struct pl_ulist pu;     /* every place's PUs, one after the other */
	unsigned *start;        /* place q holds pu.v[start[q]] .. pu.v[start[q + 1] - 1] */
	unsigned n;
};

/* OpenMP's places of KIND: the usable PUs of each PU, core or socket.
 * A machine without cores has a place per PU, one without sockets is one
 * place; libgomp drops a place with no CPU it may use. */
static int make_places(pl_topology_t topo, enum pl_omp_places kind, struct places *pl)
{
	hwloc_obj_type_t type = kind == PL_OMP_CORES ? HWLOC_OBJ_CORE :
				kind == PL_OMP_SOCKETS ? HWLOC_OBJ_PACKAGE : HWLOC_OBJ_PU;
	hwloc_obj_t obj = NULL;

	if (hwloc_get_nbobjs_by_type(topo->topo, type) <= 0)
		type = kind == PL_OMP_CORES ? HWLOC_OBJ_PU : HWLOC_OBJ_MACHINE;
	pl->start = calloc(pl_topology_get_nbpus(topo) + 2, sizeof(*pl->start));
	if (!pl->start)
		return -1;
	while ((obj = hwloc_get_next_obj_by_type(topo->topo, type, obj))) {
		pl->start[pl->n] = (unsigned)pl->pu.n;
		if (pl_usable_pus_inside(topo, obj->cpuset, &pl->pu) < 0)
			return -1;
		if (pl->pu.n > pl->start[pl->n])
			pl->n++;
	}
	pl->start[pl->n] = (unsigned)pl->pu.n;
	return 0;
}

/* libgomp's gomp_team_start, the primary thread on the first place and
 * the partition all places.  spread with T <= P: each thread the first
 * place of a subpartition of P/T or P/T + 1 places. */
static void spread_places(unsigned np, unsigned t, unsigned *place)
{
	unsigned s = np / t, rest = (s + 1) * (np % t), p = 0, i;

	for (i = 1; i < t; i++) {
		p += p < rest ? s + 1 : s;
		if (p == np)
			p = 0;
		place[i] = p;
	}
}

/* close (and spread with T > P): threads on consecutive places; T > P:
 * S = T/P on each, the last T mod P one by one from the first. */
static void close_places(unsigned np, unsigned t, unsigned *place)
{
	unsigned s = t > np ? t / np : 1, rest = t > np ? t % np : 0, p = 0, k = 1, i;

	for (i = 1; i < t; i++) {
		if (k == s) {
			if (++p == np)
				p = 0;
			k = 1;
			if (i == t - rest)
				s = 1;
		} else {
			k++;
		}
		place[i] = p;
	}
}

int pl_openmp_place(pl_topology_t topo, enum pl_omp_bind bind, enum pl_omp_places kind,
		    unsigned t, int *out)
{
	struct places pl = { 0 };
	unsigned *place = calloc(t, sizeof(*place)), *taken = NULL, i, q;
	int ret = -1;

	if (!place || make_places(topo, kind, &pl) < 0)
		goto out;
	if (pl.n == 0) {
		pl_set_error(topo, EINVAL, "OpenMP places: no usable PU here");
		goto out;
	}
	/* primary keeps every thread on the primary thread's place (0). */
	if (bind == PL_OMP_SPREAD && t <= pl.n)
		spread_places(pl.n, t, place);
	else if (bind != PL_OMP_PRIMARY)
		close_places(pl.n, t, place);
	/* One PU per worker: the workers of one place take its PUs in turn. */
	taken = calloc(pl.n, sizeof(*taken));
	if (!taken)
		goto out;
	for (i = 0; i < t; i++) {
		q = place[i];
		out[i] = (int)pl.pu.v[pl.start[q] + taken[q]++ % (pl.start[q + 1] - pl.start[q])];
	}
	ret = 0;
out:
	if (ret < 0 && !topo->err[0])
		pl_set_error(topo, ENOMEM, "OpenMP places: out of memory");
	free(taken);
	free(place);
	free(pl.pu.v);
	free(pl.start);
	return ret;
}

/* ---- likwid-pin ------------------------------------------------------- */

/* A domain: N (the node), S<k> (socket k), M<k> (NUMA domain k), or the
 * kind alone for scatter ("S:scatter"). */
struct domain {
	char kind;          /* 'N', 'S', 'M' */
	long index;         /* -1: the kind alone */
};

#define LIKWID_ACCEPTED "likwid-pin's N:LIST, S<k>:LIST, M<k>:LIST, L:DOMAIN:LIST, " \
			"E:DOMAIN[:COUNT[:CHUNK:STRIDE[:OFFSET]]], S:scatter[:COUNT], M:scatter, N:scatter " \
			"or a DOMAIN (N, S0, M1), joined by @"

/* The highest number a likwid-pin expression may hold. */
#define LK_MAX 65535u

/* What read_domain() and the readers of an expression find wrong. */
enum { LK_BAD = -1, LK_CACHE = -2 };

/* Read a domain name from P up to ':' or '@' or the end: 0 when it is
 * one, LK_BAD when not, LK_CACHE for a cache domain (not mapped here). */
static int read_domain(const char **p, struct domain *d, bool bare_kind)
{
	const char *s = *p;

	if (*s != 'N' && *s != 'S' && *s != 'M' && *s != 'C')
		return LK_BAD;
	d->kind = *s++;
	d->index = -1;
	if (d->kind != 'N' && isdigit((unsigned char)*s)) {
		if ((d->index = pl_parse_index(&s, LK_MAX)) < 0)
			return LK_BAD;
	} else if (d->kind != 'N' && !bare_kind) {
		return LK_BAD;
	}
	if (*s && *s != ':' && *s != '@')
		return LK_BAD;
	if (d->kind == 'C')
		return LK_CACHE;
	*p = s;
	return 0;
}

/* Digits up to the next ':' or '@' or the end, 0..LK_MAX; -1 when not. */
static long field(const char **p)
{
	const char *s = *p;
	long v = pl_parse_index(&s, LK_MAX);

	if (v < 0 || (*s && *s != ':' && *s != '@'))
		return -1;
	*p = s;
	return v;
}

/* One expression of the @-list, at *P: its form and fields. */
struct likwid_expr {
	enum { LK_LOGICAL, LK_EXPR, LK_SCATTER, LK_DOMAIN } form;
	struct domain d;
	const char *list;       /* LK_LOGICAL: the index list, up to '@' or the end */
	size_t listlen;
	long count, chunk, stride, offset;  /* LK_EXPR, LK_SCATTER (count); -1: not given */
};

/* E:DOMAIN[:COUNT[:CHUNK:STRIDE[:OFFSET]]] at *P; 0, LK_BAD or LK_CACHE. */
static int read_e_form(const char **p, struct likwid_expr *e)
{
	const char *s = *p + 2;
	long f[4] = { -1, -1, -1, -1 };
	int nf = 0, r;

	e->form = LK_EXPR;
	if ((r = read_domain(&s, &e->d, false)) < 0)
		return r;
	while (*s == ':') {
		s++;
		if (nf == 4 || (f[nf++] = field(&s)) < 0)
			return LK_BAD;
	}
	/* E:D, E:D:COUNT, E:D:COUNT:CHUNK:STRIDE, and an offset after. */
	if (nf == 2 || (nf >= 1 && f[0] < 1) || (nf >= 3 && (f[1] < 1 || f[2] < 1)))
		return LK_BAD;
	e->count = f[0];
	e->chunk = f[1];
	e->stride = f[2];
	e->offset = f[3];
	*p = s;
	return 0;
}

/* [L:]DOMAIN:LIST, KIND:scatter[:COUNT] or a DOMAIN alone at *P; 0,
 * LK_BAD or LK_CACHE. */
static int read_domain_form(const char **p, struct likwid_expr *e)
{
	const char *s = *p;
	bool logical = strncmp(s, "L:", 2) == 0;
	int r;

	if (logical)
		s += 2;
	if ((r = read_domain(&s, &e->d, true)) < 0)
		return r;
	if (*s == ':' && strncmp(s + 1, "scatter", 7) == 0 && (!s[8] || s[8] == ':' || s[8] == '@')) {
		if (logical || e->d.index >= 0)
			return LK_BAD;
		e->form = LK_SCATTER;
		s += 8;
		if (*s == ':') {
			s++;
			if ((e->count = field(&s)) < 1)
				return LK_BAD;
		}
	} else if (*s == ':') {
		if (e->d.kind != 'N' && e->d.index < 0)
			return LK_BAD;
		e->form = LK_LOGICAL;
		e->list = ++s;
		s += strspn(s, "0123456789,-");
		e->listlen = (size_t)(s - e->list);
		if (!e->listlen)
			return LK_BAD;
	} else {
		if (logical || (e->d.kind != 'N' && e->d.index < 0))
			return LK_BAD;
		e->form = LK_DOMAIN;
	}
	*p = s;
	return 0;
}

/* Read the expression at *P up to '@' or the end; -1 with a message. */
static int read_expr(const char **p, struct likwid_expr *e, char *err, size_t errlen)
{
	const char *s = *p;
	int r;

	memset(e, 0, sizeof(*e));
	e->count = e->chunk = e->stride = e->offset = -1;
	r = strncmp(s, "E:", 2) == 0 ? read_e_form(&s, e) : read_domain_form(&s, e);
	if (r == 0 && *s && *s != '@')
		r = LK_BAD;
	if (r == LK_CACHE)
		snprintf(err, errlen,
			 "policy '%s': likwid-pin's cache domains (C0, C1...) are not mapped, threadrun reads no caches; use N, S<k> or M<k>",
			 *p);
	else if (r < 0)
		snprintf(err, errlen, "policy '%s' is not a valid likwid-pin expression, accepted: %s",
			 *p, LIKWID_ACCEPTED);
	else
		*p = s;
	return r < 0 ? -1 : 0;
}

/* The index list of an LK_LOGICAL expression, through pl_cpulist_parse(). */
static int read_indices(const struct likwid_expr *e, unsigned **idx, char *err, size_t errlen)
{
	char *list = strndup(e->list, e->listlen);
	int n = list ? pl_cpulist_parse(list, idx, err, errlen) : -1;

	free(list);
	return n;
}

bool pl_likwid_looks(const char *text)
{
	struct domain d;
	const char *s = text;

	if (strncmp(text, "E:", 2) == 0 || strncmp(text, "L:", 2) == 0)
		return true;
	return read_domain(&s, &d, true) != LK_BAD;
}

int pl_likwid_check(const char *text, char *err, size_t errlen)
{
	struct likwid_expr e;
	const char *p = text;
	unsigned *idx = NULL;
	int n;

	for (;;) {
		if (read_expr(&p, &e, err, errlen) < 0)
			goto bad;
		if (e.form == LK_LOGICAL) {
			n = read_indices(&e, &idx, err, errlen);
			free(idx);
			idx = NULL;
			if (n < 0) {
				snprintf(err, errlen,
					 "policy '%s': '%.*s' is not a list of indices in the domain, accepted: indices and ranges, comma-separated (0-3,8)",
					 text, (int)e.listlen, e.list);
				goto bad;
			}
		}
		if (!*p)
			return 0;
		p++;
		if (!*p) {
			snprintf(err, errlen, "policy '%s': nothing after '@', accepted: %s", text,
				 LIKWID_ACCEPTED);
			goto bad;
		}
	}
bad:
	errno = EINVAL;
	return -1;
}

/* The usable PUs of OBJ in logical order (raw, likwid's processorList),
 * or physical cores first (sorted, likwid's cpulist_sort: the first
 * strand of every core, then the second...). */
static int domain_pus(pl_topology_t topo, hwloc_obj_t obj, bool sorted, struct pl_ulist *l)
{
	struct pl_ulist raw = { 0 };
	unsigned strand, max = sorted ? pl_topology_get_max_strands(topo) : 1;
	size_t i;
	int ret = -1;

	if (pl_usable_pus_inside(topo, obj->cpuset, sorted ? &raw : l) < 0)
		goto out;
	for (strand = 0; strand < max && sorted; strand++)
		for (i = 0; i < raw.n; i++) {
			hwloc_obj_t pu = pl_pu_by_os(topo, raw.v[i]);
			bool in_core = pu->parent && pu->parent->type == HWLOC_OBJ_CORE;

			if ((in_core ? pu->sibling_rank : 0) == strand && pl_ulist_add(l, raw.v[i]) < 0)
				goto out;
		}
	ret = 0;
out:
	if (ret < 0)
		pl_set_error(topo, errno, "likwid-pin expression: out of memory");
	free(raw.v);
	return ret;
}

/* How many domains of KIND hwloc shows: 0 for N, the node. */
static int domains(pl_topology_t topo, char kind)
{
	return kind == 'N' ? 0 : hwloc_get_nbobjs_by_type(topo->topo, kind == 'S' ?
							  HWLOC_OBJ_PACKAGE : HWLOC_OBJ_NUMANODE);
}

/* The object of domain D, or NULL with a message.  N is the machine, and
 * so is S0 (M0) where hwloc shows no package (NUMA node), as in likwid. */
static hwloc_obj_t domain_obj(pl_topology_t topo, const struct domain *d, const char *text)
{
	int n = domains(topo, d->kind);

	if (n <= 0 && d->index <= 0)
		return hwloc_get_root_obj(topo->topo);
	if (d->index >= n) {
		pl_set_error(topo, EINVAL, "policy '%s': domain %c%ld does not exist here, the %s domains are %c0..%c%d",
			     text, d->kind, d->index, d->kind == 'S' ? "socket" : "NUMA", d->kind,
			     d->kind, n - 1);
		return NULL;
	}
	return hwloc_get_obj_by_type(topo->topo, d->kind == 'S' ? HWLOC_OBJ_PACKAGE :
				     HWLOC_OBJ_NUMANODE, (unsigned)d->index);
}

/* An expression's PUs past what memory or PL_MAX_LIST allow: -1. */
static int too_many(pl_topology_t topo, const char *text)
{
	pl_set_error(topo, errno ? errno : ENOMEM, "policy '%s': %s", text,
		     errno == E2BIG ? "too many PUs" : "out of memory");
	return -1;
}

/* S:scatter, M:scatter, N:scatter: the domains in turn, each one's PUs
 * physical cores first, up to the expression's count. */
static int resolve_scatter(pl_topology_t topo, const char *text, const struct likwid_expr *e,
			   struct pl_ulist *out)
{
	int n = domains(topo, e->d.kind);
	unsigned ndom = n > 0 ? (unsigned)n : 1, i;
	struct pl_ulist *lists = calloc(ndom, sizeof(*lists));
	struct domain d = e->d;
	size_t most = 0, j;
	long added = 0;
	int ret = -1;

	if (!lists)
		return too_many(topo, text);
	for (i = 0; i < ndom; i++) {
		d.index = i;
		if (domain_pus(topo, domain_obj(topo, &d, text), true, &lists[i]) < 0)
			goto out;
		most = lists[i].n > most ? lists[i].n : most;
	}
	for (j = 0; j < most; j++)
		for (i = 0; i < ndom; i++)
			if (j < lists[i].n && (e->count < 0 || added < e->count)) {
				if (pl_ulist_add(out, lists[i].v[j]) < 0) {
					too_many(topo, text);
					goto out;
				}
				added++;
			}
	ret = 0;
out:
	for (i = 0; i < ndom; i++)
		free(lists[i].v);
	free(lists);
	return ret;
}

/* The usable PUs of E's domain, physical cores first for an index list;
 * -1 with a message when there are none. */
static int domain_list(pl_topology_t topo, const char *text, const struct likwid_expr *e,
		       struct pl_ulist *dom)
{
	hwloc_obj_t obj = domain_obj(topo, &e->d, text);

	if (!obj || domain_pus(topo, obj, e->form == LK_LOGICAL, dom) < 0)
		return -1;
	if (dom->n)
		return 0;
	if (e->d.index < 0)
		pl_set_error(topo, EINVAL, "policy '%s': domain %c has no usable PU here", text,
			     e->d.kind);
	else
		pl_set_error(topo, EINVAL, "policy '%s': domain %c%ld has no usable PU here", text,
			     e->d.kind, e->d.index);
	return -1;
}

/* DOMAIN:LIST: the domain's PUs at the indices of the list. */
static int resolve_indices(pl_topology_t topo, const char *text, const struct likwid_expr *e,
			   const struct pl_ulist *dom, struct pl_ulist *out)
{
	unsigned *idx = NULL;
	char err[256];
	int n = read_indices(e, &idx, err, sizeof(err)), i, ret = -1;

	if (n < 0) {
		too_many(topo, text);
		goto out;
	}
	/* likwid-pin refuses more indices than the domain has PUs. */
	if ((size_t)n > dom->n) {
		pl_set_error(topo, EINVAL, "policy '%s': %d indices for a domain of %zu usable PU%s",
			     text, n, dom->n, dom->n == 1 ? "" : "s");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (idx[i] >= dom->n) {
			pl_set_error(topo, EINVAL,
				     "policy '%s': index %u is past the domain's %zu usable PU%s, allowed 0..%zu",
				     text, idx[i], dom->n, dom->n == 1 ? "" : "s", dom->n - 1);
			goto out;
		}
		if (pl_ulist_add(out, dom->v[idx[i]]) < 0) {
			too_many(topo, text);
			goto out;
		}
	}
	ret = 0;
out:
	free(idx);
	return ret;
}

/* E:D:COUNT:CHUNK:STRIDE:OFFSET, as cpustring.c walks it: CHUNK PUs from
 * every STRIDE-th position, back to the start past the end, until COUNT;
 * E:D alone is every usable PU of the machine's count; a bare domain is
 * its own PUs. */
static int resolve_strided(pl_topology_t topo, const char *text, const struct likwid_expr *e,
			   const struct pl_ulist *dom, struct pl_ulist *out)
{
	long n = (long)dom->n, added = 0, at, j;
	long count = e->form == LK_DOMAIN ? n :
		     e->count > 0 ? e->count : (long)pl_topology_get_nbusable(topo);
	long chunk = e->chunk > 0 ? e->chunk : 1, stride = e->stride > 0 ? e->stride : 1;
	long off = e->offset > 0 ? e->offset : 0;

	if (off >= n) {
		pl_set_error(topo, EINVAL, "policy '%s': offset %ld is past the domain's %ld usable PU%s",
			     text, off, n, n == 1 ? "" : "s");
		return -1;
	}
	for (at = 0; added < count;) {
		for (j = 0; j < chunk && off + at + j < n && added < count; j++, added++)
			if (pl_ulist_add(out, dom->v[off + at + j]) < 0)
				return too_many(topo, text);
		at += stride;
		if (off + at >= n)
			at = 0;
	}
	return 0;
}

static int resolve_expr(pl_topology_t topo, const char *text, const struct likwid_expr *e,
			struct pl_ulist *out)
{
	struct pl_ulist dom = { 0 };
	int ret = -1;

	if (e->form == LK_SCATTER)
		return resolve_scatter(topo, text, e, out);
	if (domain_list(topo, text, e, &dom) < 0)
		goto out;
	if (e->form == LK_LOGICAL)
		ret = resolve_indices(topo, text, e, &dom, out);
	else
		ret = resolve_strided(topo, text, e, &dom, out);
out:
	free(dom.v);
	return ret;
}

int pl_likwid_resolve(pl_topology_t topo, const char *text, struct pl_ulist *out)
{
	struct likwid_expr e;
	const char *p = text;
	char err[256];

	for (;;) {
		if (read_expr(&p, &e, err, sizeof(err)) < 0) {
			pl_set_error(topo, EINVAL, "%s", err);
			return -1;
		}
		if (resolve_expr(topo, text, &e, out) < 0)
			return -1;
		if (!*p)
			return 0;
		p++;
	}
}

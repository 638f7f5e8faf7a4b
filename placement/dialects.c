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
	unsigned *pu;       /* every place's PUs, one after the other */
	unsigned *start;    /* place q holds pu[start[q]] .. pu[start[q + 1] - 1] */
	unsigned n;
};

static int make_places(pl_topology_t topo, enum pl_omp_places kind, struct places *pl)
{
	hwloc_obj_type_t type = kind == PL_OMP_CORES ? HWLOC_OBJ_CORE : HWLOC_OBJ_PACKAGE;
	hwloc_obj_t obj = NULL, pu;
	unsigned npus = pl_topology_get_nbpus(topo), used = 0;
	struct pl_ulist inside = { 0 };
	size_t i;
	bool whole;
	int ret = -1;

	pl->n = 0;
	pl->pu = calloc(npus + 1, sizeof(*pl->pu));
	pl->start = calloc(npus + 2, sizeof(*pl->start));
	if (!pl->pu || !pl->start) {
		pl_set_error(topo, ENOMEM, "OpenMP places: out of memory");
		return -1;
	}
	/* threads, or a machine without that level: every PU is a place
	 * (cores), or the machine is one (sockets). */
	whole = kind == PL_OMP_SOCKETS && hwloc_get_nbobjs_by_type(topo->topo, type) <= 0;
	if (kind == PL_OMP_THREADS ||
	    (kind == PL_OMP_CORES && hwloc_get_nbobjs_by_type(topo->topo, type) <= 0)) {
		pu = NULL;
		while ((pu = hwloc_get_next_obj_by_type(topo->topo, HWLOC_OBJ_PU, pu))) {
			if (!hwloc_bitmap_isset(topo->usable, pu->os_index))
				continue;
			pl->start[pl->n++] = used;
			pl->pu[used++] = pu->os_index;
		}
		pl->start[pl->n] = used;
		return 0;
	}
	for (;;) {
		if (whole)
			obj = obj ? NULL : hwloc_get_root_obj(topo->topo);
		else
			obj = hwloc_get_next_obj_by_type(topo->topo, type, obj);
		if (!obj)
			break;
		pl->start[pl->n] = used;
		inside.n = 0;
		if (pl_usable_pus_inside(topo, obj->cpuset, &inside) < 0) {
			pl_set_error(topo, ENOMEM, "OpenMP places: out of memory");
			goto out;
		}
		for (i = 0; i < inside.n && used < npus; i++)
			pl->pu[used++] = inside.v[i];
		/* libgomp drops a place with no CPU it may use. */
		if (used > pl->start[pl->n])
			pl->n++;
		if (whole)
			break;
	}
	pl->start[pl->n] = used;
	ret = 0;
out:
	free(inside.v);
	return ret;
}

int pl_openmp_place(pl_topology_t topo, enum pl_omp_bind bind, enum pl_omp_places kind,
		    unsigned t, int *out)
{
	struct places pl = { 0 };
	unsigned *place = calloc(t, sizeof(*place)), *taken = NULL;
	unsigned p = 0, s = 1, k = 1, rest = 0, i, q, size;
	int ret = -1;

	if (!place || make_places(topo, kind, &pl) < 0)
		goto out;
	if (pl.n == 0) {
		pl_set_error(topo, EINVAL, "OpenMP places: no usable PU here");
		goto out;
	}
	/* libgomp's gomp_team_start, the primary thread on the first place
	 * and the partition all places: close packs threads on consecutive
	 * places (T > P: S = T/P on each, the last T mod P one by one from the
	 * first); spread gives each thread the first place of a subpartition
	 * of P/T or P/T + 1 places (T > P: as close); primary keeps every
	 * thread on the primary thread's place. */
	place[0] = 0;
	if (bind == PL_OMP_SPREAD && t <= pl.n) {
		s = pl.n / t;
		rest = (s + 1) * (pl.n % t);
		for (i = 1; i < t; i++) {
			p += p < rest ? s + 1 : s;
			if (p == pl.n)
				p = 0;
			place[i] = p;
		}
	} else if (bind != PL_OMP_PRIMARY) {
		if (t > pl.n) {
			s = t / pl.n;
			rest = t % pl.n;
		}
		for (i = 1; i < t; i++) {
			if (k == s) {
				if (++p == pl.n)
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
	/* One PU per worker: the workers of one place take its PUs in turn. */
	taken = calloc(pl.n, sizeof(*taken));
	if (!taken) {
		pl_set_error(topo, ENOMEM, "OpenMP places: out of memory");
		goto out;
	}
	for (i = 0; i < t; i++) {
		q = place[i];
		size = pl.start[q + 1] - pl.start[q];
		out[i] = (int)pl.pu[pl.start[q] + taken[q]++ % size];
	}
	ret = 0;
out:
	if (ret < 0 && !topo->err[0])
		pl_set_error(topo, ENOMEM, "OpenMP places: out of memory");
	free(taken);
	free(place);
	free(pl.pu);
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

/* Read a domain name from P up to ':' or '@' or the end: 1 when it is
 * one, 0 when not, -1 for a cache domain (not mapped here). */
static int read_domain(const char **p, struct domain *d, bool bare_kind)
{
	const char *s = *p;
	long v = 0;

	if (*s != 'N' && *s != 'S' && *s != 'M' && *s != 'C')
		return 0;
	d->kind = *s++;
	d->index = -1;
	if (d->kind != 'N') {
		if (isdigit((unsigned char)*s)) {
			for (; isdigit((unsigned char)*s); s++) {
				v = v * 10 + (*s - '0');
				if (v > 65535)
					return 0;
			}
			d->index = v;
		} else if (!bare_kind) {
			return 0;
		}
	}
	if (*s && *s != ':' && *s != '@')
		return 0;
	if (d->kind == 'C')
		return -1;
	*p = s;
	return 1;
}

/* Digits up to the next ':' or '@' or the end, 1..65535; -1 when not. */
static long field(const char **p)
{
	const char *s = *p;
	long v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > 65535)
			return -1;
	}
	if (*s && *s != ':' && *s != '@')
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

static int read_expr(const char **p, struct likwid_expr *e, char *err, size_t errlen)
{
	const char *s = *p, *start = *p;
	long f[4] = { -1, -1, -1, -1 };
	bool logical = false;
	int nf = 0, r;

	memset(e, 0, sizeof(*e));
	e->count = e->chunk = e->stride = e->offset = -1;
	if (strncmp(s, "E:", 2) == 0) {
		s += 2;
		e->form = LK_EXPR;
		if ((r = read_domain(&s, &e->d, false)) <= 0)
			goto bad_domain;
		while (*s == ':') {
			s++;
			if (nf == 4 || (f[nf++] = field(&s)) < 0)
				goto bad;
		}
		/* E:D, E:D:COUNT, E:D:COUNT:CHUNK:STRIDE, and an offset after. */
		if (nf == 2 || (nf >= 1 && f[0] < 1) || (nf >= 3 && (f[1] < 1 || f[2] < 1)))
			goto bad;
		e->count = f[0];
		e->chunk = f[1];
		e->stride = f[2];
		e->offset = f[3];
	} else {
		if (strncmp(s, "L:", 2) == 0) {
			s += 2;
			logical = true;
		}
		if ((r = read_domain(&s, &e->d, true)) <= 0)
			goto bad_domain;
		if (*s == ':' && strncmp(s + 1, "scatter", 7) == 0 && (!s[8] || s[8] == ':' || s[8] == '@')) {
			if (logical || e->d.index >= 0)
				goto bad;
			e->form = LK_SCATTER;
			s += 8;
			if (*s == ':') {
				s++;
				if ((e->count = field(&s)) < 1)
					goto bad;
			}
		} else if (*s == ':') {
			if (e->d.kind != 'N' && e->d.index < 0)
				goto bad;
			e->form = LK_LOGICAL;
			e->list = ++s;
			while (*s && *s != '@') {
				if (!isdigit((unsigned char)*s) && *s != ',' && *s != '-')
					goto bad;
				s++;
			}
			e->listlen = (size_t)(s - e->list);
			if (!e->listlen)
				goto bad;
		} else {
			if (logical || (e->d.kind != 'N' && e->d.index < 0))
				goto bad;
			e->form = LK_DOMAIN;
		}
	}
	if (*s && *s != '@')
		goto bad;
	*p = s;
	return 0;
bad_domain:
	if (r < 0) {
		snprintf(err, errlen,
			 "policy '%s': likwid-pin's cache domains (C0, C1...) are not mapped, threadrun reads no caches; use N, S<k> or M<k>",
			 start);
		return -1;
	}
bad:
	snprintf(err, errlen, "policy '%s' is not a valid likwid-pin expression, accepted: %s", start,
		 LIKWID_ACCEPTED);
	return -1;
}

bool pl_likwid_looks(const char *text)
{
	struct domain d;
	const char *s = text;

	if (strncmp(text, "E:", 2) == 0 || strncmp(text, "L:", 2) == 0)
		return true;
	return read_domain(&s, &d, true) != 0;
}

int pl_likwid_check(const char *text, char *err, size_t errlen)
{
	struct likwid_expr e;
	const char *p = text;
	unsigned *os = NULL;
	char *list;
	int n;

	for (;;) {
		if (read_expr(&p, &e, err, errlen) < 0)
			goto bad;
		if (e.form == LK_LOGICAL) {
			list = strndup(e.list, e.listlen);
			n = list ? pl_cpulist_parse(list, &os, err, errlen) : -1;
			free(list);
			free(os);
			os = NULL;
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

/* The object of domain D, or NULL with a message. */
static hwloc_obj_t domain_obj(pl_topology_t topo, const struct domain *d, const char *text)
{
	hwloc_obj_type_t type = d->kind == 'S' ? HWLOC_OBJ_PACKAGE : HWLOC_OBJ_NUMANODE;
	int n = hwloc_get_nbobjs_by_type(topo->topo, type);

	if (d->kind == 'N')
		return hwloc_get_root_obj(topo->topo);
	/* likwid has S0 on a machine hwloc shows no package of. */
	if (n <= 0 && d->index == 0)
		return hwloc_get_root_obj(topo->topo);
	if (d->index >= n) {
		pl_set_error(topo, EINVAL, "policy '%s': domain %c%ld does not exist here, the %s domains are %c0..%c%d",
			     text, d->kind, d->index, d->kind == 'S' ? "socket" : "NUMA", d->kind,
			     d->kind, n - 1);
		return NULL;
	}
	return hwloc_get_obj_by_type(topo->topo, type, (unsigned)d->index);
}

static int resolve_expr(pl_topology_t topo, const char *text, const struct likwid_expr *e,
			struct pl_ulist *out)
{
	struct pl_ulist dom = { 0 }, *lists = NULL;
	hwloc_obj_t obj = NULL;
	unsigned *idx = NULL, ndom = 0, most = 0, i, j, added = 0;
	long count, chunk, stride, off, at;
	char err[256], *list;
	int n, ret = -1;

	if (e->form == LK_SCATTER) {
		hwloc_obj_type_t type = e->d.kind == 'S' ? HWLOC_OBJ_PACKAGE : HWLOC_OBJ_NUMANODE;
		int nobj = e->d.kind == 'N' ? 1 : hwloc_get_nbobjs_by_type(topo->topo, type);

		if (nobj <= 0)
			nobj = 1;
		lists = calloc((size_t)nobj, sizeof(*lists));
		if (!lists)
			goto oom;
		for (i = 0; i < (unsigned)nobj; i++) {
			obj = e->d.kind == 'N' || hwloc_get_nbobjs_by_type(topo->topo, type) <= 0 ?
			      hwloc_get_root_obj(topo->topo) : hwloc_get_obj_by_type(topo->topo, type, i);
			if (domain_pus(topo, obj, true, &lists[ndom]) < 0)
				goto out;
			if (lists[ndom].n) {
				most = lists[ndom].n > most ? (unsigned)lists[ndom].n : most;
				ndom++;
			}
		}
		/* The domains in turn, each one's PUs physical cores first. */
		for (j = 0; j < most; j++)
			for (i = 0; i < ndom; i++)
				if (j < lists[i].n && (e->count < 0 || added < (unsigned long)e->count)) {
					if (pl_ulist_add(out, lists[i].v[j]) < 0)
						goto oom;
					added++;
				}
		goto done;
	}
	obj = domain_obj(topo, &e->d, text);
	if (!obj)
		goto out;
	if (domain_pus(topo, obj, e->form == LK_LOGICAL, &dom) < 0)
		goto out;
	if (dom.n == 0) {
		if (e->d.index < 0)
			pl_set_error(topo, EINVAL, "policy '%s': domain %c has no usable PU here", text,
				     e->d.kind);
		else
			pl_set_error(topo, EINVAL, "policy '%s': domain %c%ld has no usable PU here",
				     text, e->d.kind, e->d.index);
		goto out;
	}
	if (e->form == LK_LOGICAL) {
		list = strndup(e->list, e->listlen);
		n = list ? pl_cpulist_parse(list, &idx, err, sizeof(err)) : -1;
		free(list);
		if (n < 0)
			goto oom;
		/* likwid-pin refuses more indices than the domain has PUs. */
		if ((size_t)n > dom.n) {
			pl_set_error(topo, EINVAL, "policy '%s': %d indices for a domain of %zu usable PU%s",
				     text, n, dom.n, dom.n == 1 ? "" : "s");
			goto out;
		}
		for (i = 0; i < (unsigned)n; i++) {
			if (idx[i] >= dom.n) {
				pl_set_error(topo, EINVAL,
					     "policy '%s': index %u is past the domain's %zu usable PU%s, allowed 0..%zu",
					     text, idx[i], dom.n, dom.n == 1 ? "" : "s", dom.n - 1);
				goto out;
			}
			if (pl_ulist_add(out, dom.v[idx[i]]) < 0)
				goto oom;
		}
		goto done;
	}
	/* E:D:COUNT:CHUNK:STRIDE:OFFSET, as cpustring.c walks it: CHUNK PUs
	 * from every STRIDE-th position, back to the start past the end, until
	 * COUNT; E:D alone is every usable PU of the machine's count; a bare
	 * domain is its own PUs. */
	count = e->form == LK_DOMAIN ? (long)dom.n :
		e->count > 0 ? e->count : (long)pl_topology_get_nbusable(topo);
	chunk = e->chunk > 0 ? e->chunk : 1;
	stride = e->stride > 0 ? e->stride : 1;
	off = e->offset > 0 ? e->offset : 0;
	if (off >= (long)dom.n) {
		pl_set_error(topo, EINVAL, "policy '%s': offset %ld is past the domain's %zu usable PU%s",
			     text, off, dom.n, dom.n == 1 ? "" : "s");
		goto out;
	}
	for (at = 0; added < (unsigned long)count;) {
		for (j = 0; j < (unsigned long)chunk && off + at + (long)j < (long)dom.n &&
			    added < (unsigned long)count; j++) {
			if (pl_ulist_add(out, dom.v[off + at + (long)j]) < 0)
				goto oom;
			added++;
		}
		at += stride;
		if (off + at >= (long)dom.n)
			at = 0;
	}
done:
	ret = 0;
	goto out;
oom:
	pl_set_error(topo, errno ? errno : ENOMEM, "policy '%s': %s", text,
		     errno == E2BIG ? "too many PUs" : "out of memory");
out:
	for (i = 0; lists && i < ndom; i++)
		free(lists[i].v);
	free(lists);
	free(dom.v);
	free(idx);
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

/* Loading a topology (this machine, synthetic or XML) and asking where PUs sit. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "placement_private.h"

extern char **environ;

void pl_set_error(pl_topology_t topo, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(topo->err, sizeof(topo->err), fmt, ap);
	va_end(ap);
	errno = err;
}

int pl_topology_init(pl_topology_t *topop)
{
	pl_topology_t topo = calloc(1, sizeof(*topo));

	if (!topo)
		return -1;
	topo->usable = hwloc_bitmap_alloc();
	if (!topo->usable) {
		free(topo);
		return -1;
	}
	*topop = topo;
	return 0;
}

int pl_topology_set_source(pl_topology_t topo, const char *spec)
{
	char *copy = strdup(spec);

	if (!copy)
		return -1;
	free(topo->source);
	topo->source = copy;
	return 0;
}

/* hwloc's libxml2 plugin refuses a bad file when it is named, its own
 * minimal parser only when the topology loads: both end here. */
static void bad_xml(pl_topology_t topo)
{
	pl_set_error(topo, EINVAL,
		     "topology: '%s' is not a valid hwloc XML export (make one with 'lstopo FILE.xml')",
		     topo->source);
}

static bool looks_like_xml(const char *spec)
{
	struct stat st;
	size_t n = strlen(spec);

	return stat(spec, &st) == 0 || strchr(spec, '/') ||
	       (n > 4 && strcmp(spec + n - 4, ".xml") == 0);
}

/* Planning is for machines that exist, and hwloc builds a synthetic one
 * in time that grows faster than the square of a level's width
 * (lstopo -i: "core:2048 pu:1" 0.3 s, "core:8192 pu:1" 17 s,
 * "package:256 core:256 pu:1" 53 s), so larger ones are refused first.
 * 8192 PUs is Linux's largest NR_CPUS; no machine has over 1024 of one
 * kind under one parent. */
#ifndef MAX_SYNTHETIC_PUS
#define MAX_SYNTHETIC_PUS 8192ull    /* the fuzz build sets it lower */
#endif
#define MAX_SYNTHETIC_WIDTH 1024ull

/* The PUs a synthetic description makes, and in *WIDEST its largest
 * arity, read the way hwloc's parser reads it (topology-synthetic.c):
 * a level is "TYPE:N" with the type ended by the next ':' wherever it is,
 * or a bare "N"; N goes through strtoul base 0 ("0x10", " +2"); a level
 * needs no space before the next ("core:2pu:2"); "(attributes)" end at the
 * first ')'; "[numa...]" attaches memory and ends at the first ']'.
 * Saturates past MAX_SYNTHETIC_PUS.  Where hwloc would refuse the rest,
 * counting stops: hwloc's own parser then says no. */
static unsigned long long synthetic_pus(const char *spec, unsigned long long *widest)
{
	unsigned long long pus = 1;
	unsigned long n;
	const char *p = spec;
	char *end;

	*widest = 1;
	while (*p) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (*p == '(' || *p == '[') {
			p = strchr(p, *p == '(' ? ')' : ']');
			if (!p)
				break;
			p++;
			continue;
		}
		if (!*p)
			break;
		if (*p < '0' || *p > '9') {
			p = strchr(p, ':');
			if (!p)
				break;
			p++;
		}
		n = strtoul(p, &end, 0);
		if (end == p || n == 0 || n > UINT_MAX)   /* "-1" too */
			break;
		pus = pus > MAX_SYNTHETIC_PUS / n ? MAX_SYNTHETIC_PUS + 1 : pus * n;
		*widest = n > *widest ? n : *widest;
		p = end;
	}
	return pus;
}

/* An export larger than any machine's (8192 PUs with their caches make
 * about 10 MB): a bigger file is not one. */
#define MAX_XML_BYTES (64u << 20)

/* The XML file's text into TOPO->XML, read once here: only a regular file
 * of a sane size, looked at before it is opened (a device is never opened:
 * some act on an open) and again after (O_NONBLOCK: a FIFO put there
 * meanwhile never holds the caller up; /dev/zero never fills its memory). */
static int read_xml(pl_topology_t topo)
{
	int fd = -1, ret = -1;
	struct stat st;
	ssize_t n = 1;

	if (stat(topo->source, &st) < 0)
		goto unreadable;
	if (S_ISREG(st.st_mode)) {
		fd = open(topo->source, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0)
			goto unreadable;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > MAX_XML_BYTES) {
		pl_set_error(topo, EINVAL,
			     "topology: '%s' is %s, accepted: an hwloc XML export (a regular file up to %u MiB) "
			     "or a synthetic description",
			     topo->source, S_ISDIR(st.st_mode) ? "a directory" :
				!S_ISREG(st.st_mode) ? "not a regular file" : "too large",
			     MAX_XML_BYTES >> 20);
		goto out;
	}
	free(topo->xml);
	topo->xml_len = 0;
	if (!(topo->xml = malloc((size_t)st.st_size + 1))) {
		pl_set_error(topo, ENOMEM, "topology: out of memory");
		goto out;
	}
	while (topo->xml_len < (size_t)st.st_size &&
	       (n = read(fd, topo->xml + topo->xml_len, (size_t)st.st_size - topo->xml_len)) > 0)
		topo->xml_len += (size_t)n;
	topo->xml[topo->xml_len] = '\0';
	if (n < 0)
		goto unreadable;
	ret = 0;
	goto out;
unreadable:
	pl_set_error(topo, errno, "topology: cannot read XML file '%s': %s", topo->source,
		     strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Point hwloc at the requested source; fills the error on failure. */
static int select_source(pl_topology_t topo)
{
	if (!topo->source)
		return 0;
	if (!looks_like_xml(topo->source)) {
		unsigned long long widest, pus = synthetic_pus(topo->source, &widest);

		if (pus > MAX_SYNTHETIC_PUS) {
			pl_set_error(topo, E2BIG,
				     "topology: '%.60s%s' describes more than %llu PUs, the most threadrun plans for",
				     topo->source, strlen(topo->source) > 60 ? "..." : "",
				     MAX_SYNTHETIC_PUS);
			return -1;
		}
		if (widest > MAX_SYNTHETIC_WIDTH) {
			pl_set_error(topo, E2BIG,
				     "topology: '%.60s%s' puts %llu objects under one parent, accepted: up to %llu per level",
				     topo->source, strlen(topo->source) > 60 ? "..." : "", widest,
				     MAX_SYNTHETIC_WIDTH);
			return -1;
		}
		if (hwloc_topology_set_synthetic(topo->topo, topo->source) == 0)
			return 0;
		pl_set_error(topo, EINVAL,
			     "topology: '%.60s%s' is not a valid hwloc synthetic description "
			     "(e.g. 'numa:1 package:1 core:8 pu:8') nor an XML file",
			     topo->source, strlen(topo->source) > 60 ? "..." : "");
		return -1;
	}
	if (read_xml(topo) < 0)
		return -1;
	if (hwloc_topology_set_xmlbuffer(topo->topo, topo->xml, (int)topo->xml_len + 1) == 0)
		return 0;
	bad_xml(topo);
	return -1;
}

/* Usable PUs: the topology keeps every PU (INCLUDE_DISALLOWED), so that a
 * cgroup and a taskset describe one machine alike; what the cpuset allows
 * (this machine's cgroup, or the allowed set of an XML export) and, on this
 * machine, the process's own affinity narrow the PUs plans may use. */
static int compute_usable(pl_topology_t topo)
{
	hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo->topo);
	hwloc_bitmap_t bind = NULL;
	int ret = -1;

	hwloc_bitmap_and(topo->usable, all, hwloc_topology_get_allowed_cpuset(topo->topo));
	if (!topo->thissystem) {
		if (hwloc_bitmap_iszero(topo->usable)) {
			pl_set_error(topo, ENODEV, "topology: the export allows no PU");
			return -1;
		}
		return 0;
	}
	bind = hwloc_bitmap_alloc();
	if (!bind)
		goto out;
	if (hwloc_get_cpubind(topo->topo, bind, HWLOC_CPUBIND_PROCESS) == 0)
		hwloc_bitmap_and(topo->usable, topo->usable, bind);
	if (hwloc_bitmap_iszero(topo->usable)) {
		pl_set_error(topo, ENODEV, "topology: no PU is usable by this process");
		goto out;
	}
	ret = 0;
out:
	hwloc_bitmap_free(bind);
	return ret;
}

/* hwloc variables that change only what hwloc prints or which XML parser
 * it uses; every other HWLOC_ variable changes which machine is loaded. */
static bool harmless_var(const char *name, size_t len)
{
	static const char *const keep[] = { "HWLOC_HIDE_ERRORS", "HWLOC_LIBXML",
		"HWLOC_LIBXML_IMPORT", "HWLOC_LIBXML_EXPORT", "HWLOC_NO_LIBXML_IMPORT",
		"HWLOC_NO_LIBXML_EXPORT" };
	static const char verbose[] = "_VERBOSE";
	size_t i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (strlen(keep[i]) == len && strncmp(name, keep[i], len) == 0)
			return true;
	return len > sizeof(verbose) - 1 &&
	       strncmp(name + len - (sizeof(verbose) - 1), verbose, sizeof(verbose) - 1) == 0;
}

/* Drop the HWLOC_ variables that would make hwloc load another machine
 * (HWLOC_SYNTHETIC, HWLOC_XMLFILE, HWLOC_FSROOT, HWLOC_THISSYSTEM,
 * HWLOC_COMPONENTS...): the source is this machine or the one named with
 * pl_topology_set_source(), never the environment's.  Their names are kept
 * in topo->note; the program launched later does not inherit them either. */
static int drop_hwloc_env(pl_topology_t topo)
{
	char **names = NULL, **grown, *note = NULL, *p;
	size_t n = 0, i, len, total = 1;
	int ret = -1;

	for (i = 0; environ && environ[i]; i++) {
		if (strncmp(environ[i], "HWLOC_", 6) != 0)
			continue;
		len = strcspn(environ[i], "=");
		if (harmless_var(environ[i], len))
			continue;
		grown = realloc(names, (n + 1) * sizeof(*names));
		if (!grown)
			goto out;
		names = grown;
		names[n] = strndup(environ[i], len);
		if (!names[n])
			goto out;
		total += len + 2;
		n++;
	}
	if (n) {
		note = malloc(total);
		if (!note)
			goto out;
		for (i = 0, p = note; i < n; i++) {
			p += sprintf(p, "%s%s", i ? ", " : "", names[i]);
			unsetenv(names[i]);
		}
		free(topo->note);
		topo->note = note;
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int by_os_cmp(const void *a, const void *b)
{
	unsigned x = (*(const hwloc_obj_t *)a)->os_index, y = (*(const hwloc_obj_t *)b)->os_index;

	return x < y ? -1 : x > y;
}

/* Index the PUs by OS index once: hwloc's lookup scans every PU, which made
 * plans of thousands of workers quadratic. */
static int index_pus(pl_topology_t topo)
{
	int n = hwloc_get_nbobjs_by_type(topo->topo, HWLOC_OBJ_PU);
	hwloc_obj_t pu = NULL;
	unsigned i = 0;

	if (n <= 0) {
		pl_set_error(topo, ENODEV, "topology: it has no PU");
		return -1;
	}
	topo->by_os = calloc((size_t)n, sizeof(*topo->by_os));
	if (!topo->by_os) {
		pl_set_error(topo, ENOMEM, "topology: out of memory");
		return -1;
	}
	while ((pu = hwloc_get_next_obj_by_type(topo->topo, HWLOC_OBJ_PU, pu)) && i < (unsigned)n)
		topo->by_os[i++] = pu;
	topo->npus = i;
	qsort(topo->by_os, topo->npus, sizeof(*topo->by_os), by_os_cmp);
	return 0;
}

hwloc_obj_t pl_pu_by_os(pl_topology_t topo, unsigned os_index)
{
	size_t lo = 0, hi = topo->npus, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (topo->by_os[mid]->os_index == os_index)
			return topo->by_os[mid];
		if (topo->by_os[mid]->os_index < os_index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int by_logical_cmp(const void *a, const void *b)
{
	unsigned x = (*(const hwloc_obj_t *)a)->logical_index, y = (*(const hwloc_obj_t *)b)->logical_index;

	return (x > y) - (x < y);
}

/* From the set's own bits, not hwloc's walk of every PU per call
 * (hwloc_get_next_obj_inside_cpuset_by_type): a likwid scatter over a
 * few thousand sockets made that quadratic walk take seconds. */
int pl_usable_pus_inside(pl_topology_t topo, hwloc_const_cpuset_t set, struct pl_ulist *out)
{
	hwloc_bitmap_t both = hwloc_bitmap_alloc();
	hwloc_obj_t *objs = NULL, pu;
	size_t n = 0, i;
	int os, w, ret = -1;

	if (!both)
		goto out;
	hwloc_bitmap_and(both, set, topo->usable);
	w = hwloc_bitmap_weight(both);
	objs = malloc((w > 0 ? (size_t)w : 1) * sizeof(*objs));
	if (!objs)
		goto out;
	hwloc_bitmap_foreach_begin(os, both)
		pu = pl_pu_by_os(topo, (unsigned)os);
		if (pu && n < (size_t)w)
			objs[n++] = pu;
	hwloc_bitmap_foreach_end();
	qsort(objs, n, sizeof(*objs), by_logical_cmp);
	for (i = 0; i < n; i++)
		if (pl_ulist_add(out, objs[i]->os_index) < 0)
			goto out;
	ret = 0;
out:
	free(objs);
	hwloc_bitmap_free(both);
	return ret;
}

/* What a plan does not read, left out of loading: distances, memory
 * attributes and CPU kinds (hwloc 2.8 and later), and hwloc's plugins (PCI,
 * OpenCL, GL, libxml2: the built-in XML parser reads hwloc's XML).  The
 * plugins and the libraries they pull in were most of a launch's cost. */
#if HWLOC_API_VERSION >= 0x00020800
#define LIGHT_FLAGS (HWLOC_TOPOLOGY_FLAG_NO_DISTANCES | HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS | \
		     HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS)
#else
#define LIGHT_FLAGS 0
#endif
#define PLUGINS_NOT_NEEDED "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_xml_libxml,hwloc_cuda," \
			   "hwloc_nvml,hwloc_rsmi,hwloc_levelzero"

/* hwloc_topology_init() with plugins kept from loading: hwloc reads
 * HWLOC_PLUGINS_PATH and _BLACKLIST when its first topology is made, so
 * they are set for that call only (drop_hwloc_env() has removed a user's
 * own) and never reach the program threadrun starts.  The path names no
 * directory, so hwloc does not even list and stat its plugins (a tenth of
 * the topology's load from the cache); the blacklist holds wherever it
 * would find one. */
#define NO_PLUGINS_PATH "/nonexistent/threadrun-loads-no-hwloc-plugins"
static int init_without_plugins(hwloc_topology_t *topo)
{
	int ret = -1, saved;

	if (setenv("HWLOC_PLUGINS_BLACKLIST", PLUGINS_NOT_NEEDED, 1) == 0 &&
	    setenv("HWLOC_PLUGINS_PATH", NO_PLUGINS_PATH, 1) == 0)
		ret = hwloc_topology_init(topo);
	saved = errno;
	unsetenv("HWLOC_PLUGINS_BLACKLIST");
	unsetenv("HWLOC_PLUGINS_PATH");
	errno = saved;
	return ret;
}

/*
 * On this machine, hwloc's x86 backend runs cpuid on every PU after the
 * Linux backend has read the cores, packages and caches from sysfs; it only
 * adds what plans do not read (whether a cache is inclusive), and in a VM
 * every cpuid is a trip to the hypervisor: a fifth of the load's time, and
 * a binding to every PU.  Left out where the kernel describes the cores
 * (without sysfs, cpuid is what finds them).
 */
static void skip_cpuid_backend(pl_topology_t topo)
{
#if HWLOC_API_VERSION >= 0x00020100
	if (!topo->source && access("/sys/devices/system/cpu/cpu0/topology/core_id", R_OK) == 0)
		hwloc_topology_set_components(topo->topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#else
	(void)topo;
#endif
}

static bool use_cache(pl_topology_t topo)
{
	return topo->cache_file && !topo->source && !topo->caches;
}

/* TOPO's topology from its cache file, or, where that does not describe
 * this machine, discovered as without one (topo->from_cache says which). */
static int load_cached(pl_topology_t topo)
{
	hwloc_topology_t cached;

	if (init_without_plugins(&cached) == 0) {
		if (pl_topocache_load(cached, topo->cache_file) == 0) {
			hwloc_topology_destroy(topo->topo);
			topo->topo = cached;
			topo->from_cache = true;
			return 0;
		}
		hwloc_topology_destroy(cached);
	}
	return hwloc_topology_load(topo->topo);
}

int pl_topology_load(pl_topology_t topo)
{
	if (topo->loaded) {
		pl_set_error(topo, EBUSY, "topology: already loaded");
		return -1;
	}
	if (drop_hwloc_env(topo) < 0) {
		pl_set_error(topo, ENOMEM, "topology: out of memory");
		return -1;
	}
	if (init_without_plugins(&topo->topo) < 0) {
		pl_set_error(topo, errno, "topology: hwloc init failed: %s", strerror(errno));
		return -1;
	}
	/* Plans need no caches; leaving them out also keeps descriptions short. */
	if (!topo->caches)
		hwloc_topology_set_cache_types_filter(topo->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_icache_types_filter(topo->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	/* Nor I/O devices (hwloc's default, said here so it stays so). */
	hwloc_topology_set_io_types_filter(topo->topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_flags(topo->topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED | LIGHT_FLAGS);
	if (select_source(topo) < 0)
		return -1;
	skip_cpuid_backend(topo);
	if ((use_cache(topo) ? load_cached(topo) : hwloc_topology_load(topo->topo)) < 0) {
		if (topo->source && looks_like_xml(topo->source))
			bad_xml(topo);
		else
			pl_set_error(topo, errno, "topology: hwloc could not load '%s': %s",
				     topo->source ? topo->source : "this machine", strerror(errno));
		return -1;
	}
	if (use_cache(topo) && !topo->from_cache)
		pl_topocache_store(topo->topo, topo->cache_file);
	topo->thissystem = hwloc_topology_is_thissystem(topo->topo);
	if (index_pus(topo) < 0 || compute_usable(topo) < 0)
		return -1;
	topo->loaded = true;
	return 0;
}

int pl_topology_restrict(pl_topology_t topo, const char *cpus)
{
	unsigned *pus = NULL;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int n, i, ret = -1;

	if (!set)
		return -1;
	n = pl_topology_parse_cpus(topo, cpus, "allowed", &pus);
	if (n < 0)
		goto out;
	for (i = 0; i < n; i++)
		hwloc_bitmap_set(set, pus[i]);
	hwloc_bitmap_and(topo->usable, topo->usable, set);
	ret = 0;
out:
	free(pus);
	hwloc_bitmap_free(set);
	return ret;
}

void pl_topology_destroy(pl_topology_t topo)
{
	if (!topo)
		return;
	if (topo->topo)
		hwloc_topology_destroy(topo->topo);
	hwloc_bitmap_free(topo->usable);
	free(topo->by_os);
	free(topo->note);
	free(topo->source);
	free(topo->xml);
	free(topo->cache_file);
	free(topo);
}

const char *pl_topology_get_error(pl_topology_t topo)
{
	return topo->err;
}

const char *pl_topology_get_ignored_env(pl_topology_t topo)
{
	return topo->note;
}

hwloc_topology_t pl_topology_get_hwloc(pl_topology_t topo)
{
	return topo->topo;
}

int pl_topology_set_caches(pl_topology_t topo, bool keep)
{
	if (topo->loaded) {
		pl_set_error(topo, EBUSY, "topology: already loaded");
		return -1;
	}
	topo->caches = keep;
	return 0;
}

int pl_topology_set_cache_file(pl_topology_t topo, const char *path)
{
	char *copy = NULL;

	if (topo->loaded) {
		pl_set_error(topo, EBUSY, "topology: already loaded");
		return -1;
	}
	if (path && !(copy = strdup(path))) {
		pl_set_error(topo, ENOMEM, "topology: out of memory");
		return -1;
	}
	free(topo->cache_file);
	topo->cache_file = copy;
	return 0;
}

const char *pl_topology_get_cache_used(pl_topology_t topo)
{
	return topo->from_cache ? topo->cache_file : NULL;
}

unsigned long long pl_topology_get_cache_size(pl_topology_t topo, unsigned pu, unsigned level)
{
	hwloc_obj_t obj = topo->loaded ? pl_pu_by_os(topo, pu) : NULL;

	for (; obj; obj = obj->parent)
		if (hwloc_obj_type_is_dcache(obj->type) && obj->attr->cache.depth == level)
			return obj->attr->cache.size;
	return 0;
}

bool pl_topology_is_thissystem(pl_topology_t topo)
{
	return topo->thissystem;
}

unsigned pl_topology_get_nbpus(pl_topology_t topo)
{
	return (unsigned)hwloc_get_nbobjs_by_type(topo->topo, HWLOC_OBJ_PU);
}

unsigned pl_topology_get_nbcores(pl_topology_t topo)
{
	int n = hwloc_get_nbobjs_by_type(topo->topo, HWLOC_OBJ_CORE);

	return n > 0 ? (unsigned)n : pl_topology_get_nbpus(topo);
}

unsigned pl_topology_get_nbusable(pl_topology_t topo)
{
	return (unsigned)hwloc_bitmap_weight(topo->usable);
}

unsigned pl_topology_get_max_strands(pl_topology_t topo)
{
	unsigned max = 1;
	hwloc_obj_t core = NULL;

	while ((core = hwloc_get_next_obj_by_type(topo->topo, HWLOC_OBJ_CORE, core))) {
		int w = hwloc_bitmap_weight(core->cpuset);

		if (w > 0 && (unsigned)w > max)
			max = (unsigned)w;
	}
	return max;
}

int pl_topology_describe(pl_topology_t topo, char *buf, size_t len)
{
	int n = hwloc_topology_export_synthetic(topo->topo, buf, len,
			HWLOC_TOPOLOGY_EXPORT_SYNTHETIC_FLAG_NO_ATTRS);
	unsigned cores, pus;
	int packages;

	if (n >= 0 && (size_t)n < len)
		return 0;
	/* Asymmetric machines have no synthetic form: give the counts. */
	packages = hwloc_get_nbobjs_by_type(topo->topo, HWLOC_OBJ_PACKAGE);
	cores = pl_topology_get_nbcores(topo);
	pus = pl_topology_get_nbpus(topo);
	n = snprintf(buf, len, "%d package%s, %u core%s, %u PU%s", packages, packages == 1 ? "" : "s",
		     cores, cores == 1 ? "" : "s", pus, pus == 1 ? "" : "s");
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* Logical index of OBJ's ancestor of TYPE, or -1. */
static int ancestor_index(hwloc_topology_t t, hwloc_obj_t obj, hwloc_obj_type_t type)
{
	hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t, type, obj);

	return a ? (int)a->logical_index : -1;
}

int pl_topology_get_pu_info(pl_topology_t topo, unsigned os_index,
			    struct pl_pu_info *info)
{
	hwloc_obj_t pu = pl_pu_by_os(topo, os_index);
	hwloc_obj_t core, numa, first_pu;
	int first;

	if (!pu) {
		errno = ENOENT;
		return -1;
	}
	info->os_index = os_index;
	info->core = ancestor_index(topo->topo, pu, HWLOC_OBJ_CORE);
	info->package = ancestor_index(topo->topo, pu, HWLOC_OBJ_PACKAGE);
	info->strand = 0;
	core = hwloc_get_ancestor_obj_by_type(topo->topo, HWLOC_OBJ_CORE, pu);
	if (core) {
		for (first_pu = core; first_pu->first_child; first_pu = first_pu->first_child)
			;
		info->strand = (int)pu->logical_index - (int)first_pu->logical_index;
	}
	info->numa = -1;
	first = hwloc_bitmap_first(pu->nodeset);
	if (first >= 0) {
		numa = hwloc_get_numanode_obj_by_os_index(topo->topo, (unsigned)first);
		info->numa = numa ? (int)numa->logical_index : -1;
	}
	info->usable = hwloc_bitmap_isset(topo->usable, os_index);
	return 0;
}

int pl_check_pu(pl_topology_t topo, unsigned os_index, const char *what)
{
	char *set = NULL;
	bool exists = pl_pu_by_os(topo, os_index) != NULL;

	if (exists && hwloc_bitmap_isset(topo->usable, os_index))
		return 0;
	if (exists) {
		hwloc_bitmap_list_asprintf(&set, topo->usable);
		pl_set_error(topo, EINVAL,
			     "%s: PU %u is not allowed here (cpuset, affinity or --allowed), allowed PUs are %s",
			     what, os_index, set ? set : "?");
	} else {
		hwloc_bitmap_list_asprintf(&set, hwloc_topology_get_topology_cpuset(topo->topo));
		pl_set_error(topo, EINVAL, "%s: PU %u does not exist, the PUs are %s", what,
			     os_index, set ? set : "?");
	}
	free(set);
	return -1;
}

/*
 * This machine's description kept between runs, as hwloc's XML, and read
 * instead of sysfs while it still describes the machine.  Discovery reads
 * a hundred sysfs files (every cache of every CPU, hwloc reads them even
 * when they are filtered out), a fifth of a launch; the XML loads in a
 * quarter of that time.  hwloc's own advice for a slow discovery is the
 * same (export once, reload with HWLOC_THISSYSTEM).
 *
 * The file's first line is its key: the format, hwloc's version and API,
 * the boot, the online CPUs and NUMA nodes.  A reboot, a CPU or node taken
 * offline or another hwloc changes it and the machine is discovered again.
 * What the cgroup allows is never taken from the file: hwloc reads it
 * from the system again (THISSYSTEM_ALLOWED_RESOURCES).  The file is data:
 * one that is not the user's own regular file, is too large, has another
 * key, is not whole, does not parse or whose PUs are not the online CPUs
 * is ignored, and rewritten.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "placement_private.h"

/* Bumped when what threadrun loads changes (filters, flags): an older
 * file then no longer matches. */
#define KEY_FORMAT "threadrun topology cache 2"
#define MAX_CACHE_BYTES (4u << 20)
#define CACHE_END "</topology>\n"
#define CACHE_FLAGS (HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED | HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM | \
		     HWLOC_TOPOLOGY_FLAG_THISSYSTEM_ALLOWED_RESOURCES)
#ifndef HWLOC_VERSION
#define HWLOC_VERSION "?"
#endif

/* The first line of a small system file, without its newline; -1 when
 * it cannot be read, is empty or is longer than BUF. */
static int first_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!strchr(buf, '\n'))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -1;
}

/* This machine's key, with its newline, in *KEY (malloc'd); the online CPU
 * list into ONLINE.  -1 when the boot or the CPUs cannot be named. */
static int cache_key(char **key, char *online, size_t onlen)
{
	char boot[64], nodes[4096];

	*key = NULL;
	if (first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) < 0 ||
	    first_line("/sys/devices/system/cpu/online", online, onlen) < 0)
		return -1;
	/* NUMA nodes come and go with memory hotplug (CXL, virtio-mem). */
	if (first_line("/sys/devices/system/node/online", nodes, sizeof(nodes)) < 0)
		strcpy(nodes, "-");
	if (asprintf(key, KEY_FORMAT "; hwloc " HWLOC_VERSION " API %#x; boot %s; online %s; nodes %s\n",
		     hwloc_get_api_version(), boot, online, nodes) < 0) {
		*key = NULL;
		return -1;
	}
	return 0;
}

/* The file's whole text, NUL-terminated, when it is the user's own regular
 * file of a sane size; NULL otherwise.  O_NONBLOCK: a FIFO put there
 * never holds threadrun up (fstat then refuses it). */
static char *read_cache(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	char *buf = NULL;
	struct stat st;
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size <= 0 || (size_t)st.st_size > MAX_CACHE_BYTES)
		goto out;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	*lenp = got;
out:
	close(fd);
	return buf;
}

/* Whether T's PUs are exactly the online CPUs the key named: each PU's
 * cpuset its own OS index, no index twice, all of them there. */
static bool pus_are_online(hwloc_topology_t t, const char *online)
{
	hwloc_bitmap_t want = hwloc_bitmap_alloc(), seen = hwloc_bitmap_alloc();
	hwloc_obj_t pu = NULL;
	bool ok = want && seen && hwloc_bitmap_list_sscanf(want, online) == 0;

	while (ok && (pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu)))
		ok = pu->cpuset && hwloc_bitmap_weight(pu->cpuset) == 1 &&
		     hwloc_bitmap_first(pu->cpuset) == (int)pu->os_index &&
		     !hwloc_bitmap_isset(seen, pu->os_index) &&
		     hwloc_bitmap_set(seen, pu->os_index) == 0;
	ok = ok && hwloc_bitmap_isequal(seen, want) &&
	     hwloc_bitmap_isequal(want, hwloc_topology_get_topology_cpuset(t));
	hwloc_bitmap_free(want);
	hwloc_bitmap_free(seen);
	return ok;
}

/* Whether TEXT (LEN bytes) is a whole cache under KEY: no NUL inside and
 * the XML's last line there.  What fails here never reaches hwloc, whose
 * parser would print its error on stderr. */
static bool whole_cache(const char *text, size_t len, const char *key)
{
	size_t klen = strlen(key), elen = strlen(CACHE_END);

	return strlen(text) == len && len > klen + elen && memcmp(text, key, klen) == 0 &&
	       memcmp(text + len - elen, CACHE_END, elen) == 0;
}

int pl_topocache_load(hwloc_topology_t t, const char *path)
{
	char *key = NULL, online[4096], *text = NULL;
	size_t len = 0, klen;
	int ret = -1;

	if (cache_key(&key, online, sizeof(online)) < 0)
		goto out;
	text = read_cache(path, &len);
	if (!text || !whole_cache(text, len, key))
		goto out;
	klen = strlen(key);
	if (hwloc_topology_set_xmlbuffer(t, text + klen, (int)(len - klen + 1)) < 0 ||
	    hwloc_topology_set_flags(t, CACHE_FLAGS) < 0 || hwloc_topology_load(t) < 0)
		goto out;
	ret = pus_are_online(t, online) ? 0 : -1;
out:
	free(key);
	free(text);
	return ret;
}

/* mkdir -p of PATH's directory, private to the user. */
static int make_parents(const char *path)
{
	char *dir = strdup(path), *p;
	int ret = -1;

	if (!dir)
		return -1;
	for (p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			goto out;
		*p = '/';
	}
	ret = 0;
out:
	free(dir);
	return ret;
}

/* Whether PATH may be replaced by the cache: absent, a regular file or a
 * link (the link is replaced, never written through); never a device, a
 * FIFO or a directory someone named as the cache. */
static bool replaceable(const char *path)
{
	struct stat st;

	return lstat(path, &st) < 0 ? errno == ENOENT : S_ISREG(st.st_mode) || S_ISLNK(st.st_mode);
}

int pl_topocache_store(hwloc_topology_t t, const char *path)
{
	char *key = NULL, online[4096], *tmp = NULL, *xml = NULL;
	int len = 0, fd = -1, ret = -1;
	bool made = false, ok;
	FILE *f;

	if (!replaceable(path) || cache_key(&key, online, sizeof(online)) < 0 ||
	    !pus_are_online(t, online) || make_parents(path) < 0 ||
	    asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		goto out;
	}
	if (hwloc_topology_export_xmlbuffer(t, &xml, &len, 0) < 0 || (fd = mkstemp(tmp)) < 0)
		goto out;
	made = true;
	f = fdopen(fd, "w");
	if (!f)
		goto out;
	fd = -1;
	ok = fputs(key, f) >= 0 && fwrite(xml, 1, strlen(xml), f) == strlen(xml);
	/* The last write happens here (a full disk fails it): fclose once. */
	if (fclose(f) != 0)
		ok = false;
	/* Renamed over the old one only once whole: a reader never sees half. */
	if (ok)
		ret = rename(tmp, path);
out:
	if (fd >= 0)
		close(fd);
	if (ret < 0 && made)
		unlink(tmp);
	if (xml)
		hwloc_free_xmlbuffer(t, xml);
	free(tmp);
	free(key);
	return ret;
}

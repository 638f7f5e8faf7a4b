/*
 * This machine's description kept between runs, as hwloc's XML, and read
 * instead of sysfs while it still describes the machine.  Discovery reads
 * a hundred sysfs files (every cache of every CPU, hwloc reads them even
 * when they are filtered out), a fifth of a launch; the XML loads in a
 * quarter of that time.  hwloc's own advice for a slow discovery is the
 * same (export once, reload with HWLOC_THISSYSTEM).
 *
 * The file's first line is its key: the format, hwloc's API version, the boot
 * and the online CPUs.  A reboot, a CPU taken offline or an hwloc of another API
 * changes it and the machine is discovered again.  What the cgroup allows
 * is never taken from the file: hwloc reads it from the system again
 * (THISSYSTEM_ALLOWED_RESOURCES).  The file is data: one that is not the
 * user's own regular file, is too large, has another key, does not parse or
 * whose PUs are not the online CPUs is ignored, and rewritten.
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

#define KEY_FORMAT "threadrun topology cache 1"
#define MAX_CACHE_BYTES (4u << 20)
#define CACHE_FLAGS (HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED | HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM | \
		     HWLOC_TOPOLOGY_FLAG_THISSYSTEM_ALLOWED_RESOURCES)

/* The first line of a small system file, without its newline; -1 when
 * it cannot be read or is empty. */
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
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -1;
}

/* This machine's key, with its newline, into BUF; the online CPU list
 * into ONLINE.  -1 when the boot or the CPUs cannot be named. */
static int cache_key(char *buf, size_t len, char *online, size_t onlen)
{
	char boot[64];
	int n;

	if (first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) < 0 ||
	    first_line("/sys/devices/system/cpu/online", online, onlen) < 0)
		return -1;
	n = snprintf(buf, len, KEY_FORMAT "; hwloc %#x; boot %s; online %s\n",
		     hwloc_get_api_version(), boot, online);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The file's whole text, NUL-terminated, when it is the user's own regular
 * file of a sane size; NULL otherwise. */
static char *read_cache(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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

/* Whether T's PUs are exactly the online CPUs the key named. */
static bool pus_are_online(hwloc_topology_t t, const char *online)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	bool same;

	same = set && hwloc_bitmap_list_sscanf(set, online) == 0 &&
	       hwloc_bitmap_isequal(set, hwloc_topology_get_topology_cpuset(t));
	hwloc_bitmap_free(set);
	return same;
}

int pl_topocache_load(hwloc_topology_t t, const char *path)
{
	char key[256], online[4096], *text;
	size_t len = 0, klen;
	int ret = -1;

	if (cache_key(key, sizeof(key), online, sizeof(online)) < 0)
		return -1;
	text = read_cache(path, &len);
	klen = strlen(key);
	if (!text || len <= klen || memcmp(text, key, klen) != 0)
		goto out;
	if (hwloc_topology_set_xmlbuffer(t, text + klen, (int)(len - klen + 1)) < 0 ||
	    hwloc_topology_set_flags(t, CACHE_FLAGS) < 0 || hwloc_topology_load(t) < 0)
		goto out;
	ret = pus_are_online(t, online) ? 0 : -1;
out:
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

int pl_topocache_store(hwloc_topology_t t, const char *path)
{
	char key[256], online[4096], *tmp = NULL, *xml = NULL;
	int len = 0, fd = -1, ret = -1;
	FILE *f;

	if (cache_key(key, sizeof(key), online, sizeof(online)) < 0 || !pus_are_online(t, online) ||
	    make_parents(path) < 0 || asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		goto out;
	}
	if (hwloc_topology_export_xmlbuffer(t, &xml, &len, 0) < 0 || (fd = mkstemp(tmp)) < 0)
		goto out;
	f = fdopen(fd, "w");
	if (!f)
		goto out;
	fd = -1;
	/* Renamed over the old one only once whole: a reader never sees half. */
	if (fputs(key, f) >= 0 && fwrite(xml, 1, strlen(xml), f) == strlen(xml) && fclose(f) == 0)
		ret = rename(tmp, path);
	else
		fclose(f);
out:
	if (fd >= 0)
		close(fd);
	if (ret < 0 && tmp)
		unlink(tmp);
	if (xml)
		hwloc_free_xmlbuffer(t, xml);
	free(tmp);
	return ret;
}

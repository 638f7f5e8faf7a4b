/*
 * Fuzz target: hwloc XML topologies (small files) through the placement
 * library, and plans on whatever loads.  tests/fuzz/run runs it twice:
 * with hwloc's libxml2 parser where the plugin is installed, and with its
 * own minimal parser (HWLOC_LIBXML=0).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "plan_all.h"

/* hwloc unloads its plugins when its last topology goes; the libxml2
 * plugin takes libxml2 and ICU with it, and the one-time caches they keep
 * (ICU's for an odd encoding) become leaks with no stack to suppress.  A
 * topology held for the fuzzer's life keeps them loaded and reachable. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static hwloc_topology_t keep_plugins_loaded;

	(void)argc;
	(void)argv;
	hwloc_topology_init(&keep_plugins_loaded);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz_xml_XXXXXX.xml";
	int fd;

	if (size > 16384)
		return 0;
	fd = mkstemps(path, 4);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size)
		plan_all(path);
	close(fd);
	unlink(path);
	return 0;
}

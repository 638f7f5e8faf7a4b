/* Fuzz target: the results-file reader and the reporter's grouping
 * (src/lib/results.c, src/report/dataset.c), on whatever bytes a file may hold. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz_results_XXXXXX", err[512];
	struct dataset ds = { 0 };
	FILE *null = fopen("/dev/null", "w");
	int fd = mkstemp(path);

	if (fd < 0 || !null)
		goto out;
	if (write(fd, data, size) != (ssize_t)size)
		goto out;
	if (dataset_read(&ds, path, null, err, sizeof(err)) == 0)
		dataset_build(&ds);
out:
	dataset_free(&ds);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	if (null)
		fclose(null);
	return 0;
}

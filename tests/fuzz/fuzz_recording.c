/* fuzz_recording.c - libFuzzer harness for a recording given as raw bytes: the input is
 * written to a file and goes through everything export and replay do with it
 * (fuzz_rec.h). Seeds are small valid recordings, so mutations reach SQLite pages. */
#include "fuzz/fuzz_rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char wal[4200], shm[4200];
	const char *path = fuzz_write("raw.xiotop", data, size);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	snprintf(shm, sizeof(shm), "%s-shm", path);
	unlink(wal);
	unlink(shm);
	fuzz_rec_check(path);
	return 0;
}

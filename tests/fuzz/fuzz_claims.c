/* fuzz_claims.c - libFuzzer harness for the benchmark-output parsers (explain/claim*.c:
 * dd with several runs, bonnie, iozone, fio JSON and text): any bytes either parse into
 * figures or give one error line, which must hold no control or bidi byte taken from the
 * input; the same for picking a table row of what parsed. */
#include "explain/claim.h"
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct claim c;
	char err[512];
	if (claim_parse_buffer("fuzz\x1b[31m", (const char *)data, size, &c, err, sizeof(err))) {
		fuzz_check_output("claim error", err, strlen(err), false);
		return 0;
	}
	/* a table's rows: no pick (one row, or the list of rows), then the last run's row */
	if (claim_pick_row(&c, "fuzz\x1b[31m", NULL, err, sizeof(err)))
		fuzz_check_output("claim row error", err, strlen(err), false);
	if (c.nruns && claim_pick_row(&c, "fuzz", c.runs[c.nruns - 1].row, err, sizeof(err)))
		fuzz_check_output("claim row error", err, strlen(err), false);
	return 0;
}

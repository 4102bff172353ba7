/* fuzz_claims.c - libFuzzer harness for the benchmark-output parsers (explain/claim*.c):
 * any bytes either parse into figures or give one error line, which must hold no control
 * or bidi byte taken from the input. */
#include "explain/claim.h"
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct claim c;
	char err[512];
	if (claim_parse_buffer("fuzz\x1b[31m", (const char *)data, size, &c, err, sizeof(err)))
		fuzz_check_output("claim error", err, strlen(err), false);
	return 0;
}

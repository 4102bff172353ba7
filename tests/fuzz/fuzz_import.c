/* fuzz_import.c - libFuzzer harness for the log parsers of `xiotop import`
 * (import/import_{xentop,vmstat,iostat}.c): the same bytes go to each parser; each
 * either parses or gives one error line, which must hold no control or bidi byte taken
 * from the input. */
#include "fuzz/fuzz_util.h"
#include "import/import_iostat.h"
#include "import/import_vmstat.h"
#include "import/import_xentop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct xerr err;
	struct imp_xentop x;
	if (imp_xentop_parse("xentop.log", buf, size, &x, &err) == 0)
		imp_xentop_free(&x);
	else
		fuzz_check_output("xentop error", err.msg, strlen(err.msg), false);
	struct imp_vmstat v;
	if (imp_vmstat_parse("vmstat.log", buf, size, &v, &err) == 0)
		imp_vmstat_free(&v);
	else
		fuzz_check_output("vmstat error", err.msg, strlen(err.msg), false);
	struct imp_iostat io;
	if (imp_iostat_parse("iostat.log", buf, size, &io, &err) == 0)
		imp_iostat_free(&io);
	else
		fuzz_check_output("iostat error", err.msg, strlen(err.msg), false);
	return 0;
}

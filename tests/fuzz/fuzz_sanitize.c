/* fuzz_sanitize.c - libFuzzer harness for core/sanitize.c (and the console's grid_text):
 * whatever the bytes, the text, JSON and CSV forms hold no control, bidi/format control
 * or invalid UTF-8 byte, a cut output stays inside its buffer, and the text form is
 * unambiguous: decoding its escapes gives the input back. */
#include "fuzz/fuzz_util.h"
#include "core/text_scan.h"
#include "ui/grid.h"

/* sanitize_text writes lowercase hex digits only */
static int hex(char c)
{
	return c >= 'A' && c <= 'F' ? -1 : text_hex_digit(c);
}

static size_t put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80)
		return (size_t)(out[0] = (char)cp, 1);
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	out[0] = (char)(0xe0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

/* The input back from sanitize_text()'s escapes; aborts on an escape it never writes. */
static size_t unescape(const char *s, char *out)
{
	size_t o = 0;
	for (; *s; s++) {
		if (*s != '\\') {
			out[o++] = *s;
			continue;
		}
		int byte = text_escape_byte(*++s, "\\ent");
		if (byte >= 0) {
			out[o++] = (char)byte;
			continue;
		}
		switch (*s) {
		case 'x':
			if (hex(s[1]) < 0 || hex(s[2]) < 0)
				abort();
			out[o++] = (char)(hex(s[1]) * 16 + hex(s[2]));
			s += 2;
			break;
		case 'u': {
			uint32_t cp = 0;
			for (int i = 1; i <= 4; i++) {
				if (hex(s[i]) < 0)
					abort();
				cp = cp * 16 + (uint32_t)hex(s[i]);
			}
			o += put_utf8(cp, out + o);
			s += 4;
			break;
		}
		default:
			abort();
		}
	}
	out[o] = '\0';
	return o;
}

static void check_stream(const char *what, const char *in, void (*put)(FILE *, const char *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	put(f, in);
	fclose(f);
	fuzz_check_output(what, buf, len, false);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	size_t cut = data[0]; /* a small output buffer, to exercise the cuts */
	char *in = fuzz_cstr(data + 1, size - 1);
	size_t inlen = strlen(in);
	size_t full_len = inlen * 8 + 1;
	char *full = malloc(full_len), *back = malloc(inlen + 1);
	char *small = malloc(cut + 1);
	size_t n = sanitize_text(in, full, full_len);
	if (n != strlen(full))
		abort();
	fuzz_check_output("sanitize_text", full, n, false);
	if (unescape(full, back) != inlen || memcmp(back, in, inlen))
		abort(); /* two inputs would look alike */
	size_t m = sanitize_text(in, small, cut + 1);
	if (m > cut || m != strlen(small) || memcmp(small, full, m))
		abort(); /* a cut output is a prefix of the whole, escape-aligned */
	fuzz_check_output("sanitize_text (cut)", small, m, false);
	check_stream("json_put_string", in, json_put_string);
	check_stream("csv_put_field", in, csv_put_field);
	char cell[512];
	for (int ascii = 0; ascii < 2; ascii++) {
		grid_text(in, ascii, cell, sizeof(cell));
		fuzz_check_output("grid_text", cell, strlen(cell), false);
	}
	free(small);
	free(back);
	free(full);
	free(in);
	return 0;
}

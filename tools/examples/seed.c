/*
 * tools/examples/seed.c: the smallest complete user of libfieldfuse, written as a program
 * outside the source tree would be: only <fieldfuse/fieldfuse.h>, built with
 *
 *     cc seed.c $(pkg-config --cflags --libs fieldfuse) -o seed
 *
 * It parses (x + y) * x over BabyBear from a string, opens a device (argv[1] as the
 * selector, else the default: $FIELDFUSE_DEVICE, the first GPU, the first CPU), runs the
 * fused program there, prints the first outputs, and checks every output against the
 * reference interpreter. Exit status 0 when all agree, 1 otherwise. tests/install_check.sh
 * builds and runs it against an installed copy. The example owns everything it creates and
 * releases it on every path (one cleanup label).
 */
#include <fieldfuse/fieldfuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char program_text[] =
	"HloModule seed\n"
	"ENTRY %main (x: babybear[4096], y: babybear[4096]) -> babybear[4096] {\n"
	"  %x = babybear[4096] parameter(0)\n"
	"  %y = babybear[4096] parameter(1)\n"
	"  %sum = babybear[4096] add(%x, %y)\n"
	"  ROOT %prod = babybear[4096] multiply(%sum, %x)\n"
	"}\n";

int main(int argc, char **argv)
{
	const char *selector = argc > 1 ? argv[1] : NULL;
	ffu_error e = {0};
	ffu_program *prog = NULL;
	ffu_device *dev = NULL;
	uint32_t *x = NULL, *y = NULL, *out = NULL, *ref = NULL;
	int rc = 1;

	printf("libfieldfuse %s\n", ffu_version());
	ffu_status st = ffu_program_parse(&prog, program_text, strlen(program_text), "seed.hlo", &e);
	if (st)
		goto out;

	/* buffers sized from the program's own description, not from the text above */
	ffu_array_info in_info, out_info;
	if ((st = ffu_program_input(prog, 0, &in_info)) || (st = ffu_program_output(prog, 0, &out_info)))
		goto out;
	x = malloc(in_info.bytes);
	y = malloc(in_info.bytes);
	out = malloc(out_info.bytes);
	ref = malloc(out_info.bytes);
	if (!x || !y || !out || !ref) {
		fprintf(stderr, "seed: out of memory\n");
		goto out;
	}
	/* canonical BabyBear values: anything below p = 2^31 - 2^27 + 1 */
	for (size_t i = 0; i < in_info.count; i++) {
		x[i] = (uint32_t)(i * 2654435761u % 0x78000001u);
		y[i] = (uint32_t)(0x78000000u - i);
	}

	if ((st = ffu_device_open(&dev, selector, &e)))
		goto out;
	printf("device %s: %s\n", ffu_device_id(dev), ffu_device_name(dev));

	const void *inputs[] = {x, y};
	ffu_run_options opts = {0};
	if ((st = ffu_program_run(dev, prog, &opts, inputs, (void *const[]){out}, &e)))
		goto out;
	printf("%d kernel(s), %.3f ms on the device\n", opts.kernels, opts.kernel_ms);
	for (size_t i = 0; i < 4 && i < out_info.count; i++)
		printf("out[%zu] = (%u + %u) * %u = %u\n", i, x[i], y[i], x[i], out[i]);

	if ((st = ffu_program_interpret(prog, inputs, (void *const[]){ref}, &e)))
		goto out;
	size_t bad = 0;
	for (size_t i = 0; i < out_info.count; i++) {
		if (out[i] != ref[i] && bad++ < 5)
			fprintf(stderr, "seed: element %zu: device %u, interpreter %u\n", i, out[i], ref[i]);
	}
	if (bad) {
		fprintf(stderr, "seed: %zu of %zu elements differ\n", bad, out_info.count);
		goto out;
	}
	printf("check: ok (%zu elements)\n", out_info.count);
	rc = 0;
out:
	/* e is filled only by calls that were given it; the status alone names the others */
	if (st) {
		fprintf(stderr, "seed: %s: ", ffu_status_str(st));
		ffu_error_print(stderr, &e);
	}
	ffu_device_close(&dev);
	ffu_program_destroy(&prog);
	free(x);
	free(y);
	free(out);
	free(ref);
	ffu_error_clear(&e);
	return rc;
}

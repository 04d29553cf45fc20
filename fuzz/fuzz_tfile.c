/* fuzz/fuzz_tfile.c
 *
 * libFuzzer target on the topology-file readers (`make fuzz`): fabsim's YAML
 * form, ibnetdiscover output and ibsim net files (src/topo/tfile.c,
 * tfile_ib.c). The first byte picks the format (auto, yaml, ibnetdiscover,
 * ibsim) and what one host of ibnetdiscover/ibsim text is (bit 2: a server
 * or an HCA), the rest is the file. Any input is either read or refused with a
 * message naming the place, never a crash, hang or sanitizer report.
 */
#include "core/diag.h"
#include "config/tfile_yaml.h"

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!size) return 0;
    static const enum tfile_format fmts[] = {TFILE_AUTO, TFILE_YAML, TFILE_IBNETDISCOVER,
                                             TFILE_IBSIM};
    enum tfile_format fmt = fmts[data[0] % 4];
    const char *path = fuzz_file(data + 1, size - 1, ".topo");
    if (!path) return 0;
    struct topo_file tf;
    struct diag d = {0};
    memset(&tf, 0, sizeof tf);
    enum tfile_group group = (data[0] >> 2) & 1 ? TFILE_GROUP_HCA : TFILE_GROUP_SERVER;
    int rc = tfile_read(&tf, path, fmt, group, &d);
    if (rc && !d.msg[0]) abort(); /* a refusal says why */
    tfile_free(&tf);
    return 0;
}

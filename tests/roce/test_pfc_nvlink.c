/* tests/roce/test_pfc_nvlink.c
 *
 * PFC headroom per port: an 8-GPU server's NVLink ports run at ~2 Tb/s, the
 * fabric at 200 G. With one headroom for every port, computed at the fabric's
 * rate (docs/sources.md A4), what an NVLink sender puts on the wire after a
 * PAUSE overflowed it: a 4 x 8 DGX ring AllReduce of 64 MiB on RoCE with PFC
 * dropped 17 packets at the NVSwitch (with the IBA timer it then waited on
 * ACK timeouts). Each ingress port now gets the headroom its own link needs,
 * and the fabric is lossless again.
 */
#include "testutil.h"

#include "flowctl/pfc-inl.h"
#include "net/net.h"

#define GBPS 1000000000ULL

static void test_nvlink_ports_get_their_headroom(void **state) {
    (void)state;
    const char *yaml =
        "name: dgx-roce\nseed: 1\n"
        "fabric: {kind: roce, link: 200Gbps, flow_control: pfc, routing: ecmp}\n"
        "topology: {kind: rail_optimized, rail_optimized: {hosts: 4, gpus_per_host: 8, "
        "spines: 8}, nvlink: 2400Gbps}\n"
        "workload:\n  - {kind: allreduce, size: 64MiB, ranks: gpus, algorithm: ring}\n";
    struct trun t;
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    const struct pfc_state *st = n->fc_state;
    uint32_t fab = 0, nvl = 0; /* a fabric port's; the fastest port's (NVLink) */
    uint64_t fastest = 0;
    for (uint32_t p = 0; p < n->nports; p++) {
        if (n->ports[p].rate_bps == 200 * GBPS && !fab) fab = st->hdrm_of[p];
        if (n->ports[p].rate_bps > fastest) fastest = n->ports[p].rate_bps, nvl = st->hdrm_of[p];
    }
    printf("  fastest port %.0f Gb/s\n", fastest / 1e9);
    assert_true(fastest >= 1000 * GBPS);
    printf("  headroom: fabric port %u B, NVLink port %u B; drops %llu, timeouts %llu\n", fab, nvl,
           (unsigned long long)n->c.packets_dropped, (unsigned long long)n->c.timeouts);
    assert_int_equal(fab, pfc_headroom_bytes(n));
    assert_true(nvl > 3 * fab);
    assert_true(t.m.completed);
    assert_int_equal(n->c.packets_dropped, 0);
    assert_int_equal(n->c.timeouts, 0);
    trun_end(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvlink_ports_get_their_headroom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

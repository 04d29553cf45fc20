/* tests/topo/test_tfile.c
 *
 * Topology files (docs/inputs.md): every built-in generator's fabric,
 * written with tfile_write_yaml and read back as `kind: file`, is the same
 * net port by port; ibnetdiscover text gives the nodes, names and rates it
 * describes; bad files fail with file:line and what is wrong.
 */
#include "testutil.h"

#include "ctrl/sm_dump.h"
#include "net/net.h"
#include "config/tfile_yaml.h"

#include <unistd.h>

static char *write_tmp(const char *text, const char *suffix) {
    char tmpl[64];
    snprintf(tmpl, sizeof tmpl, "/tmp/fabsim-topo-XXXXXX%s", suffix);
    int fd = mkstemps(tmpl, (int)strlen(suffix));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return strdup(tmpl);
}

/* The run's fabric as tfile_write_yaml writes it (caller frees). */
static char *written_yaml(const struct trun *t) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tfile_write_yaml(&t->m.net, &t->sc, f);
    fclose(f);
    return buf;
}

static void same_net(const struct net *a, const struct net *b) {
    assert_int_equal(a->nnodes, b->nnodes);
    assert_int_equal(a->nports, b->nports);
    assert_int_equal(a->nhosts, b->nhosts);
    for (uint32_t v = 0; v < a->nnodes; v++) {
        assert_string_equal(a->names[v], b->names[v]);
        assert_int_equal(a->nodes[v].kind, b->nodes[v].kind);
        assert_int_equal(a->nodes[v].role, b->nodes[v].role);
        assert_int_equal(a->nodes[v].level, b->nodes[v].level);
        assert_int_equal(a->nodes[v].nports, b->nodes[v].nports);
    }
    for (uint32_t p = 0; p < a->nports; p++) {
        assert_int_equal(a->ports[p].node, b->ports[p].node);
        assert_int_equal(a->ports[p].peer, b->ports[p].peer);
        assert_int_equal(a->ports[p].rate_bps, b->ports[p].rate_bps);
        assert_int_equal(a->ports[p].prop_ps, b->ports[p].prop_ps);
        assert_int_equal(a->ports[p].parallel, b->ports[p].parallel);
    }
}

static void build(struct trun *t, const char *yaml) {
    struct diag d = {0};
    memset(t, 0, sizeof *t);
    if (scenario_load_string(&t->sc, yaml, "test.yaml", NULL, 0, &d)) {
        diag_print(&d, stderr);
        fail_msg("scenario did not load");
    }
    t->rc = model_build(&t->m, &t->sc, &d);
    if (t->rc) diag_print(&d, stderr);
    assert_int_equal(t->rc, 0);
}

/* Every generator, written and read back, is the same fabric. */
static void test_roundtrip(void **state) {
    (void)state;
    static const char *const topos[] = {
        "{kind: single_switch, hosts: 5}",
        "{kind: leaf_spine, leaves: 3, spines: 2, hosts_per_leaf: 4, uplinks_per_spine: 2}",
        "{kind: fat_tree, k: 4}",
        "{kind: ring, switches: 5, hosts_per_switch: 2}",
        "{kind: rail_optimized, hosts: 3, gpus_per_host: 4, spines: 2}",
        "{kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2, gpus_per_host: 2}",
        "{kind: rail_optimized, hosts: 3, gpus_per_host: 4, spines: 2, rails: 2}",
        "{kind: rail_optimized, hosts: 5, gpus_per_host: 2, spines: 2, hosts_per_leaf: 2}",
    };
    for (size_t i = 0; i < sizeof topos / sizeof *topos; i++) {
        char y[512];
        snprintf(y, sizeof y, "fabric: {kind: %s, cable: 7m}\ntopology: %s\n",
                 i % 2 ? "roce" : "infiniband", topos[i]);
        struct trun a, b;
        build(&a, y);
        char *buf = written_yaml(&a);
        char *path = write_tmp(buf, ".yaml");
        snprintf(y, sizeof y, "fabric: {kind: %s}\ntopology: {kind: file, path: %s}\n",
                 i % 2 ? "roce" : "infiniband", path);
        build(&b, y);
        assert_int_equal(b.sc.topo.gpus_per_host, a.sc.topo.gpus_per_host);
        same_net(&a.m.net, &b.m.net);
        unlink(path);
        free(path);
        free(buf);
        trun_end(&a);
        trun_end(&b);
    }
}

/* `fabsim routes --ibsim-topology` (an ibsim net file) read back as a
 * topology file: the same fabric port by port (ibsim port = port index + 1). */
static void test_ibsim_roundtrip(void **state) {
    (void)state;
    static const char *const topos[] = {
        "{kind: leaf_spine, leaves: 4, spines: 3, hosts_per_leaf: 4, uplinks_per_spine: 2}",
        "{kind: fat_tree, k: 4}",
    };
    for (size_t i = 0; i < sizeof topos / sizeof *topos; i++) {
        char y[512];
        snprintf(y, sizeof y, "fabric: {kind: infiniband, link: 200Gbps}\ntopology: %s\n",
                 topos[i]);
        struct trun a, b;
        build(&a, y);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        sm_ibsim_write(&a.m.net, f);
        fclose(f);
        char *path = write_tmp(buf, ".net");
        snprintf(y, sizeof y,
                 "fabric: {kind: infiniband, link: 200Gbps}\n"
                 "topology: {kind: file, path: %s, format: ibsim}\n",
                 path);
        build(&b, y);
        /* roles are not in an ibsim file: leaf/spine/core come from the levels */
        for (uint32_t v = 0; v < b.m.net.nnodes && i == 0; v++)
            assert_int_equal(a.m.net.nodes[v].role, b.m.net.nodes[v].role);
        assert_int_equal(a.m.net.nnodes, b.m.net.nnodes);
        assert_int_equal(a.m.net.nports, b.m.net.nports);
        for (uint32_t v = 0; v < a.m.net.nnodes; v++) {
            assert_string_equal(a.m.net.names[v], b.m.net.names[v]);
            assert_int_equal(a.m.net.nodes[v].level, b.m.net.nodes[v].level);
        }
        for (uint32_t p = 0; p < a.m.net.nports; p++) {
            assert_int_equal(a.m.net.ports[p].node, b.m.net.ports[p].node);
            assert_int_equal(a.m.net.ports[p].peer, b.m.net.ports[p].peer);
            assert_int_equal(a.m.net.ports[p].rate_bps, b.m.net.ports[p].rate_bps);
        }
        unlink(path);
        free(path);
        free(buf);
        trun_end(&a);
        trun_end(&b);
    }
}

/* ibnetdiscover output (infiniband-diags 44 format): names from the node
 * descriptions, rates from width x speed, both ends of a cable agree. */
static const char *IBND =
    "#\n# Topology file: generated on Mon Nov 30 22:50:47 2026\n#\n"
    "vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0xb8cef6030000a\n"
    "switchguid=0xb8cef6030000a(b8cef6030000a)\n"
    "Switch\t4 \"S-000b8cef6030000a\"\t\t# \"qm9700-leaf1\" enhanced port 0 lid 1 lmc 0\n"
    "[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"gpu01 mlx5_0\" lid 5 4xNDR\n"
    "[2]\t\"H-0000000000100002\"[1](100003) \t\t# \"gpu02 mlx5_0\" lid 6 4xNDR\n"
    "[4]\t\"S-000b8cef6030000b\"[1]\t\t# \"qm9700-spine1\" lid 2 4xEDR\n"
    "\n"
    "vendid=0x2c9\ndevid=0xd2f0\nswitchguid=0xb8cef6030000b(b8cef6030000b)\n"
    "Switch\t2 \"S-000b8cef6030000b\"\t\t# \"qm9700-spine1\" enhanced port 0 lid 2 lmc 0\n"
    "[1]\t\"S-000b8cef6030000a\"[4]\t\t# \"qm9700-leaf1\" lid 1 4xEDR\n"
    "\n"
    "vendid=0x2c9\ndevid=0x1021\ncaguid=0x100000\n"
    "Ca\t2 \"H-0000000000100000\"\t\t# \"gpu01 mlx5_0\"\n"
    "[1](100001) \t\"S-000b8cef6030000a\"[1]\t\t# lid 5 lmc 0 \"qm9700-leaf1\" lid 1 4xNDR\n"
    "\n"
    "vendid=0x2c9\ndevid=0x1021\ncaguid=0x100002\n"
    "Ca\t1 \"H-0000000000100002\"\t\t# \"gpu02 mlx5_0\"\n"
    "[1](100003) \t\"S-000b8cef6030000a\"[2]\t\t# lid 6 lmc 0 \"qm9700-leaf1\" lid 1 4xNDR\n";

static void test_ibnetdiscover(void **state) {
    (void)state;
    char *path = write_tmp(IBND, ".txt");
    char y[512];
    snprintf(y, sizeof y, "topology: {kind: file, path: %s}\n", path);
    struct trun t;
    build(&t, y);
    const struct net *n = &t.m.net;
    assert_int_equal(n->nhosts, 2);
    assert_int_equal(n->nswitches, 2);
    assert_int_equal(n->nports, 6);
    assert_string_equal(n->names[n->host_node[0]], "gpu01");
    assert_string_equal(n->names[n->host_node[1]], "gpu02");
    uint32_t up = tlink(&t, "qm9700_leaf1->qm9700_spine1");
    assert_int_equal(n->ports[up].rate_bps, 100000000000ull); /* 4xEDR */
    assert_int_equal(n->ports[tlink(&t, "gpu01->qm9700_leaf1")].rate_bps, 400000000000ull);
    assert_int_equal(n->nodes[n->ports[up].node].level, 1);
    assert_int_equal(n->nodes[n->ports[n->ports[up].peer].node].level, 2);
    trun_end(&t);
    /* rates: fabric overrides the file */
    snprintf(y, sizeof y,
             "fabric: {link: 200Gbps}\ntopology: {kind: file, path: %s, rates: fabric}\n", path);
    build(&t, y);
    assert_int_equal(t.m.net.ports[tlink(&t, "gpu01->qm9700_leaf1")].rate_bps, 200000000000ull);
    trun_end(&t);
    unlink(path);
    free(path);
}

/* ibnetdiscover of 2 DGX H100 servers x 8 ConnectX-7 on 8 rail leaves
 * (scenarios/examples/inputs/ibnetdiscover_2x8.txt, Ca records in discovery
 * order): 2 hosts x 8 GPUs, NIC g of both on the same rail leaf (device
 * order mlx5_0, 3, 4, 5, 6, 9, 10, 11), the vendor switch names readable,
 * and a node-aware ring AllReduce that runs as on the rail_optimized
 * generator's 2 x 8 fabric, to the picosecond. */
static void test_ib_servers(void **state) {
    (void)state;
    const char *fab = "fabric: {kind: infiniband, link: 400Gbps, routing: static, "
                      "routing_engine: minhop}\n";
    const char *wl = "workload:\n  - {kind: allreduce, size: 16MiB, algorithm: ring}\n";
    char y[1024];
    snprintf(y, sizeof y, "%stopology: {kind: file, path: %s}\n%s", fab,
             "scenarios/examples/inputs/ibnetdiscover_2x8.txt", wl);
    struct trun t, g;
    trun_start(&t, y, NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    assert_int_equal(t.sc.topo.gpus_per_host, 8);
    assert_int_equal(t.sc.topo.file->nhosts, 2);
    assert_int_equal(n->nhosts, 16);
    assert_string_equal(n->names[n->host_node[0]], "dgx01.g0");
    assert_string_equal(n->names[n->host_node[15]], "dgx02.g7");
    for (uint32_t gpu = 0; gpu < 8; gpu++) {
        char l[64];
        for (int h = 1; h <= 2; h++) { /* GPU g of each server on rail leaf g + 1 */
            snprintf(l, sizeof l, "dgx0%d.g%u->rail_leaf_0%u", h, gpu, gpu + 1);
            assert_int_equal(n->ports[tlink(&t, l)].rate_bps, 400000000000ull); /* 4xNDR */
        }
    }
    (void)tlink(&t, "rail_leaf_08->spine_02");
    (void)tlink(&t, "dgx02.g3->dgx02.nvs");
    assert_true(t.m.completed);
    snprintf(y, sizeof y,
             "%stopology: {kind: rail_optimized, hosts: 2, gpus_per_host: 8, spines: 2}\n%s", fab,
             wl);
    trun_start(&g, y, NULL, 0);
    assert_true(g.m.completed);
    const struct coll_row *a = &n->coll_rows[0], *b = &g.m.net.coll_rows[0];
    print_message("2 x 8 from ibnetdiscover: ring AllReduce 16 MiB %.2f us (generator %.2f us)\n",
                  (double)(a->end_ps - a->start_ps) / 1e6, (double)(b->end_ps - b->start_ps) / 1e6);
    assert_int_equal(a->end_ps - a->start_ps, b->end_ps - b->start_ps);
    trun_end(&g);
    trun_end(&t);
}

/* A dual-port HCA with both ports cabled is one host with two NICs (one per
 * port, on two leaves); topology.group: hca still takes it whole. */
static const char *IB_DUAL =
    "vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0xa\nswitchguid=0xa(a)\n"
    "Switch\t4 \"S-000000000000000a\"\t\t# \"MF0;ib-core-1:CS7500/L05/U1\" enhanced port 0 lid 1\n"
    "[1]\t\"H-0000000000000100\"[1](100) \t\t# \"stor01 mlx5_0\" lid 5 4xHDR\n"
    "[2]\t\"H-0000000000000200\"[1](200) \t\t# \"stor02 mlx5_0\" lid 7 4xHDR\n"
    "[3]\t\"S-000000000000000b\"[1]\t\t# \"MF0;ib-core-1:CS7500/L06/U1\" lid 2 4xHDR\n"
    "\n"
    "vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0xb\nswitchguid=0xb(b)\n"
    "Switch\t4 \"S-000000000000000b\"\t\t# \"MF0;ib-core-1:CS7500/L06/U1\" enhanced port 0 lid 2\n"
    "[1]\t\"S-000000000000000a\"[3]\t\t# \"MF0;ib-core-1:CS7500/L05/U1\" lid 1 4xHDR\n"
    "[2]\t\"H-0000000000000100\"[2](101) \t\t# \"stor01 mlx5_0\" lid 6 4xHDR\n"
    "[3]\t\"H-0000000000000200\"[2](201) \t\t# \"stor02 mlx5_0\" lid 8 4xHDR\n"
    "\n"
    "vendid=0x2c9\ndevid=0x101b\nsysimgguid=0x100\ncaguid=0x100\n"
    "Ca\t2 \"H-0000000000000100\"\t\t# \"stor01 mlx5_0\"\n"
    "[1](100) \t\"S-000000000000000a\"[1]\t\t# lid 5 lmc 0 \"MF0;ib-core-1:CS7500/L05/U1\" lid 1 "
    "4xHDR\n"
    "[2](101) \t\"S-000000000000000b\"[2]\t\t# lid 6 lmc 0 \"MF0;ib-core-1:CS7500/L06/U1\" lid 2 "
    "4xHDR\n"
    "\n"
    "vendid=0x2c9\ndevid=0x101b\nsysimgguid=0x200\ncaguid=0x200\n"
    "Ca\t2 \"H-0000000000000200\"\t\t# \"stor02 mlx5_0\"\n"
    "[1](200) \t\"S-000000000000000a\"[2]\t\t# lid 7 lmc 0 \"MF0;ib-core-1:CS7500/L05/U1\" lid 1 "
    "4xHDR\n"
    "[2](201) \t\"S-000000000000000b\"[3]\t\t# lid 8 lmc 0 \"MF0;ib-core-1:CS7500/L06/U1\" lid 2 "
    "4xHDR\n";

static void test_ib_dual_port(void **state) {
    (void)state;
    char *path = write_tmp(IB_DUAL, ".txt");
    char y[512];
    for (int hca = 0; hca < 2; hca++) {
        snprintf(y, sizeof y, "topology: {kind: file, path: %s, group: %s}\n", path,
                 hca ? "hca" : "server");
        struct trun t;
        build(&t, y);
        const struct net *n = &t.m.net;
        assert_int_equal(t.sc.topo.gpus_per_host, 2);
        assert_int_equal(n->nhosts, 4);
        assert_string_equal(n->names[n->host_node[0]], "stor01.g0");
        /* the director's line cards: host name and module, not "MF0_ib_core_1_CS7500_L" */
        assert_int_equal(n->ports[tlink(&t, "stor01.g0->ib_core_1_L05_U1")].rate_bps,
                         200000000000ull);
        (void)tlink(&t, "stor01.g1->ib_core_1_L06_U1");
        (void)tlink(&t, "stor02.g1->ib_core_1_L06_U1");
        trun_end(&t);
    }
    unlink(path);
    free(path);
}

static void expect_bad(const char *text, const char *suffix, const char *needle) {
    char *path = write_tmp(text, suffix);
    char y[512];
    snprintf(y, sizeof y, "topology: {kind: file, path: %s}\n", path);
    struct scenario sc;
    struct diag d = {0};
    int rc = scenario_load_string(&sc, y, "test.yaml", NULL, 0, &d);
    char msg[1200];
    diag_format(&d, msg, sizeof msg);
    if (rc == 0) scenario_fini(&sc);
    if (rc == 0 || !strstr(msg, needle) || !strstr(msg, path))
        fail_msg("expected an error with '%s' in %s, got rc %d: %s", needle, path, rc, msg);
    unlink(path);
    free(path);
}

/* A link's own buffer (YAML `buffer`): both ends' egress queues hold at
 * most that much under tail drop, the others keep fabric.buffer; the file
 * written back carries it; lossless flow control refuses it. */
/* One switch, three hosts; link0 is the rest of h0's cable (", buffer: ..."). */
static void lbuf_file(char *text, size_t cap, const char *link0) {
    snprintf(text, cap,
             "nodes:\n  - {name: h0, kind: host}\n  - {name: h1, kind: host}\n"
             "  - {name: h2, kind: host}\n  - {name: sw0, kind: switch, ports: 3}\n"
             "links:\n  - {a: h0, b: sw0%s}\n  - {a: h1, b: sw0}\n  - {a: h2, b: sw0}\n",
             link0);
}

/* 2:1 incast of 256 KiB each into h0: the queue to h0 peaks near 256 KiB,
 * within fabric.buffer (1 MiB), beyond a 16 KiB link buffer. */
static void run_incast(struct trun *t, const char *link0, char **path) {
    char text[512], y[768];
    lbuf_file(text, sizeof text, link0);
    *path = write_tmp(text, ".yaml");
    snprintf(y, sizeof y,
             "fabric: {kind: roce, flow_control: none, congestion_control: none, buffer: 1MiB}\n"
             "topology: {kind: file, path: %s}\n"
             "workload: [{kind: incast, senders: [h1, h2], receiver: h0, size: 256KiB}]\n"
             "stop: 20ms\n",
             *path);
    trun_start(t, y, NULL, 0);
    assert_int_equal(t->rc, 0);
    unlink(*path);
}

/* A link's own buffer (YAML `buffer`): both ends' egress queues hold at
 * most that much under tail drop, the others keep fabric.buffer; the file
 * written back carries it; lossless flow control refuses it. */
static void test_link_buffer(void **state) {
    (void)state;
    struct trun t;
    char *path;
    run_incast(&t, ", buffer: 16KiB", &path);
    uint32_t down = tlink(&t, "sw0->h0"), up = tlink(&t, "h0->sw0"), other = tlink(&t, "sw0->h1");
    assert_int_equal(t.m.net.ports[down].buffer_bytes, 16384);
    assert_int_equal(t.m.net.ports[up].buffer_bytes, 16384);
    assert_int_equal(t.m.net.ports[other].buffer_bytes, 0);
    assert_true(t.m.net.ports[down].q_max <= 16384);
    assert_true(t.m.net.ports[down].drops > 0);
    char *buf = written_yaml(&t); /* written back: buffer included */
    assert_non_null(strstr(buf, "buffer: 16384B"));
    free(buf);
    trun_end(&t);
    free(path);
    /* the same file without the key: no drop, the queue well above 16 KiB */
    run_incast(&t, "", &path);
    down = tlink(&t, "sw0->h0");
    assert_int_equal(t.m.net.ports[down].drops, 0);
    assert_true(t.m.net.ports[down].q_max > 4 * 16384);
    trun_end(&t);
    free(path);
    /* credits (the default fabric) refuse it, at the link's `buffer`, line 7 */
    char text[512];
    lbuf_file(text, sizeof text, ", buffer: 16KiB");
    expect_bad(text, ".yaml", ":7:29: error: a link's own buffer needs fabric.flow_control: none");
}

static void test_bad_files(void **state) {
    (void)state;
    const char *nodes = "nodes:\n"
                        "  - {name: h0, kind: host}\n"
                        "  - {name: h1, kind: host}\n"
                        "  - {name: sw0, kind: switch, ports: 2}\n";
    char t[1024];
    snprintf(t, sizeof t, "%slinks:\n  - {a: h0, b: \"sw0:1\"}\n  - {a: h1, b: \"sw0:3\"}\n",
             nodes);
    expect_bad(t, ".yaml", ":7: error: unknown port 3 of 'sw0': it has ports 1..2");
    snprintf(t, sizeof t, "%slinks:\n  - {a: h0, b: \"sw0:1\"}\n  - {a: h1, b: \"sw0:1\"}\n",
             nodes);
    expect_bad(t, ".yaml", ":7: error: port 1 of 'sw0' is used twice (also line 6)");
    snprintf(t, sizeof t, "%slinks:\n  - {a: h0, b: sw0}\n  - {a: h1, b: sw9}\n", nodes);
    expect_bad(t, ".yaml", ":7:16: error: link to nowhere: no node 'sw9'");
    snprintf(t, sizeof t,
             "%s  - {name: h2, kind: host}\n  - {name: sw1, kind: switch}\n"
             "links:\n  - {a: h0, b: sw0}\n  - {a: h1, b: sw0}\n  - {a: h2, b: sw1}\n",
             nodes);
    expect_bad(t, ".yaml",
               "the fabric is disconnected: 2 parts: {h0, h1, sw0} (3 nodes) and {h2, sw1}");
    snprintf(t, sizeof t, "%slinks:\n  - {a: h0, b: sw0}\n  - {a: h0, b: sw0}\n", nodes);
    expect_bad(t, ".yaml", ":7: error: host 'h0' has a second link (also line 6)");
    snprintf(t, sizeof t, "%slinks:\n  - {a: h0, b: sw0, rate: fast}\n", nodes);
    expect_bad(t, ".yaml", ":6:27: error: rate 'fast'");
    snprintf(t, sizeof t, "%slinks:\n  - {a: h0, b: sw0, buffer: 0B}\n", nodes);
    expect_bad(t, ".yaml", ":6:29: error: buffer '0B': must be above 0");
    expect_bad("nodes:\n  - {name: h0, kind: router}\nlinks: []\n", ".yaml",
               ":2:22: error: unknown node kind 'router'");
    /* ibnetdiscover: a cable to an undescribed node, a port used twice */
    const char *ib1 = "Switch\t2 \"S-1\"\t\t# \"sw\"\n"
                      "[1]\t\"H-1\"[1]\t\t# \"h0\" 4xNDR\n"
                      "[2]\t\"H-9\"[1]\t\t# \"x\" 4xNDR\n\n"
                      "Ca\t1 \"H-1\"\t\t# \"h0\"\n"
                      "[1]\t\"S-1\"[1]\t\t# \"sw\" 4xNDR\n";
    expect_bad(ib1, ".txt", ":3: error: link to nowhere: node \"H-9\"");
    const char *ib2 = "Switch\t2 \"S-1\"\t\t# \"sw\"\n"
                      "[1]\t\"H-1\"[1]\t\t# \"h0\" 4xNDR\n"
                      "[2]\t\"H-1\"[1]\t\t# \"h0\" 4xNDR\n\n"
                      "Ca\t1 \"H-1\"\t\t# \"h0\"\n"
                      "[1]\t\"S-1\"[1]\t\t# \"sw\" 4xNDR\n";
    expect_bad(ib2, ".txt", ":3: error: \"H-1\" port 1 is used twice");
    const char *ib3 = "Switch\t2 \"S-1\"\t\t# \"sw\"\n"
                      "[3]\t\"H-1\"[1]\t\t# \"h0\" 4xNDR\n\n"
                      "Ca\t1 \"H-1\"\t\t# \"h0\"\n";
    expect_bad(ib3, ".txt", ":2: error: unknown port 3");
    /* a server with one HCA fewer than the other */
    const char *ib4 = "Switch\t4 \"S-1\"\t\t# \"MF0;leaf:MQM9700/U1\"\n"
                      "[1]\t\"H-1\"[1]\t\t# \"a mlx5_0\" 4xNDR\n"
                      "[2]\t\"H-2\"[1]\t\t# \"a mlx5_1\" 4xNDR\n"
                      "[3]\t\"H-3\"[1]\t\t# \"b mlx5_0\" 4xNDR\n\n"
                      "Ca\t1 \"H-1\"\t\t# \"a mlx5_0\"\n"
                      "[1]\t\"S-1\"[1]\t\t# \"leaf\" 4xNDR\n\n"
                      "Ca\t1 \"H-2\"\t\t# \"a mlx5_1\"\n"
                      "[1]\t\"S-1\"[2]\t\t# \"leaf\" 4xNDR\n\n"
                      "Ca\t1 \"H-3\"\t\t# \"b mlx5_0\"\n"
                      "[1]\t\"S-1\"[3]\t\t# \"leaf\" 4xNDR\n";
    expect_bad(ib4, ".txt", ":12: error: host 'b' has 1 cabled HCA port(s) but others have 2");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),     cmocka_unit_test(test_ibsim_roundtrip),
        cmocka_unit_test(test_ibnetdiscover), cmocka_unit_test(test_ib_servers),
        cmocka_unit_test(test_ib_dual_port),  cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_link_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

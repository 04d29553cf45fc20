#include "innet/innet.h"
#include "net/net.h"
uint32_t innet_sharp_open(struct net *n, const uint32_t *members, uint32_t m, uint32_t job) {
    (void)n, (void)members, (void)m, (void)job;
    return NET_NONE;
}
uint32_t innet_nvls_open(struct net *n, const uint32_t *members, uint32_t m) {
    (void)n, (void)members, (void)m;
    return NET_NONE;
}
void innet_close(struct net *n, uint32_t sess) { (void)n, (void)sess; }
void innet_start(struct net *n, uint32_t sess, uint32_t i, uint64_t bytes, uint32_t op,
                 uint32_t xfer) {
    (void)n, (void)sess, (void)i, (void)bytes, (void)op, (void)xfer;
}
void innet_switch_rx(struct net *n, uint32_t sw, uint32_t in_port, uint32_t id) {
    (void)n, (void)sw, (void)in_port, (void)id;
}
void innet_host_rx(struct net *n, uint32_t node, uint32_t port, uint32_t id) {
    (void)n, (void)node, (void)port, (void)id;
}
void innet_fini(struct net *n) { (void)n; }

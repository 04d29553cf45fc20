#include "net/packet.h"

#include "core/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Reserved address range, largest first: 2^32 - 2^12 packets (all ids below
 * PKT_NONE, 256 GiB of addresses) where the system allows it (an address
 * space limit, valgrind), halving down to 2^20 (64 MiB). */
#define PKT_POOL_RESERVE_MAX (UINT32_MAX - PKT_POOL_CHUNK + 1)
#define PKT_POOL_RESERVE_MIN (1u << 20)

void pkt_pool_init(struct pkt_pool *pp) {
    pp->base = NULL;
    pp->len = pp->cap = 0;
    pp->free_head = PKT_NONE;
    pp->in_use = pp->peak = 0;
}

void pkt_pool_fini(struct pkt_pool *pp) {
    if (pp->base) munmap(pp->base, (size_t)pp->cap * sizeof *pp->base);
    pkt_pool_init(pp);
}

/* The range starts on a huge page (the slack before and after is given
 * back) and asks for huge pages: a chunk is one 2 MiB page, backed at its
 * first touch when the system has one (core/mem.h). */
static void reserve(struct pkt_pool *pp) {
    for (uint64_t cap = PKT_POOL_RESERVE_MAX; cap >= PKT_POOL_RESERVE_MIN; cap /= 2) {
        cap &= ~(uint64_t)(PKT_POOL_CHUNK - 1);
        size_t bytes = cap * sizeof *pp->base, map = bytes + FS_HUGE_PAGE;
        char *m = mmap(NULL, map, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m != MAP_FAILED) {
            char *b = (char *)(((uintptr_t)m + FS_HUGE_PAGE - 1) & ~(uintptr_t)(FS_HUGE_PAGE - 1));
            if (b > m) munmap(m, (size_t)(b - m));
            if (m + map > b + bytes) munmap(b + bytes, (size_t)(m + map - (b + bytes)));
            fs_advise_huge(b, bytes);
            pp->base = (struct packet *)b;
            pp->cap = (uint32_t)cap;
            return;
        }
    }
    fprintf(stderr, "fabsim: out of memory reserving the packet pool (%u packets)\n",
            PKT_POOL_RESERVE_MIN);
    exit(1);
}

/* Makes one more chunk usable and threads it onto the free list; returns
 * its first id. */
uint32_t pkt_pool_grow(struct pkt_pool *pp) {
    if (!pp->base) reserve(pp);
    if (pp->len == pp->cap) {
        fprintf(stderr,
                "fabsim: out of memory: more than %u packets in flight at once (the packet "
                "pool's reserved range)\n",
                pp->cap);
        exit(1);
    }
    struct packet *c = pp->base + pp->len;
    if (mprotect(c, PKT_POOL_CHUNK * sizeof *c, PROT_READ | PROT_WRITE)) {
        fprintf(stderr, "fabsim: out of memory allocating %zu bytes of packets\n",
                PKT_POOL_CHUNK * sizeof *c);
        exit(1);
    }
    uint32_t base = pp->len;
    pp->len += PKT_POOL_CHUNK;
    for (uint32_t i = 0; i < PKT_POOL_CHUNK; i++)
        c[i].next = i + 1 < PKT_POOL_CHUNK ? base + i + 1 : pp->free_head;
    pp->free_head = base;
    return base;
}

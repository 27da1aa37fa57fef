/* The UDP ring's receive loop in C (trainer_hooks/ring_native.py loads it with ctypes).
 *
 * ring_rx() drains the ring's socket -- recvmsg with UDP GRO, several datagrams per call -- and takes
 * every datagram that is the common case: in-order data of the active job (seq == the next expected),
 * its header exactly the one the previous rank sends for that packet (version, dtype, job, iteration,
 * rank, bucket, address, count; no ACK flag; aux 0 or ACK_REQUEST), expected at its step and not
 * received yet.  For each it does what the Python engine does (trainer_hooks/transport.py, _on_data):
 * marks the receive map, adds the payload into the bucket copy (reduce-scatter, local + received,
 * float32 in host order, stored back in wire order) or copies it (all-gather), advances the receive
 * sequence and the ack counters, and lists (packet, next step) for the pump to forward.
 *
 * It stops -- and says where, so Python takes the rest of that receive buffer with its own code --
 * at the first datagram that is anything else (an ack, a packet out of order, a duplicate, another
 * job's data, a malformed one), when the job has received everything, when an ack is due, when the
 * forward list has no room for another buffer's packets, or after a number of receive calls.  So it
 * never decides anything the Python engine would decide differently: it is the Python fast path,
 * compiled, with no Python objects per batch.  Plain C (no CPython API): the state crosses as two
 * int64 arrays (layout below, mirrored in ring_native.py).
 *
 * ring_replay() takes a batch kept before its job started the same way; ring_send() is the sending half's
 * one system-call-heavy step (the pump decides what to send and writes the headers; this only puts the
 * datagrams on the wire, in GSO runs, several runs per sendmmsg).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define HLEN 32
#define FLAG_ACK 0x02
#define ACK_REQUEST 1

/* job[]: one int64 per entry, filled once per job by Python (pointers as integers) */
enum { J_TABLE, J_KEYS, J_KEYIDX, J_BOFF, J_SEEN, J_W, J_NPK, J_N, J_EXPECTED, J_LEN };
/* st[]: in/out state, read back after every call */
enum { S_NBYTES, S_SEG, S_AT, S_RCV_NEXT, S_ACK_DUE, S_ACK_NOW, S_RECEIVED, S_NOUT, S_TAKEN, S_RECVS,
       S_ACK_EVERY, S_MAX_OUT, S_MAX_RECVS, S_ERRNO, S_LEN };
/* return values */
enum { R_AGAIN = 0, R_REST = 1, R_DONE = 2, R_ACK = 3, R_FULL = 4, R_LIMIT = 5, R_ERROR = -1 };

static inline uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint16_t be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

/* plan index of the packet at (param_id, offset): binary search of the sorted keys, -1 if none */
static int64_t find(const uint64_t *keys, const int32_t *keyidx, int64_t npk, uint64_t key) {
    int64_t lo = 0, hi = npk;
    while (lo < hi) {
        int64_t mid = lo + ((hi - lo) >> 1);
        if (keys[mid] < key) lo = mid + 1; else hi = mid;
    }
    return (lo < npk && keys[lo] == key) ? keyidx[lo] : -1;
}

/* The two loops over whole payloads (the add, the divide) are division- and shuffle-bound.  Where the
 * loader can pick a variant at load time (GNU ifunc: gcc or clang, glibc, x86-64) they are built twice,
 * and the AVX2 one runs on CPUs that have it (twice the lanes; divps bounds the divide).  IEEE addition
 * and division are exactly rounded at any vector width, and -ffp-contract=off keeps them apart from
 * multiplications, so both variants give the same bits (tests/hooks/test_ring_native.py: numpy's). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__)
#define WIDE_VARIANTS __attribute__((target_clones("avx2", "default")))
#else
#define WIDE_VARIANTS
#endif

/* w[i] = w[i] + p[i] on big-endian float32 bit patterns, in host float32 (IEEE, round to nearest) */
WIDE_VARIANTS static void add_wire(uint32_t *restrict w, const uint8_t *restrict p, int64_t count) {
    for (int64_t i = 0; i < count; i++) {
        uint32_t a = __builtin_bswap32(w[i]), b;
        memcpy(&b, p + 4 * i, 4);
        b = __builtin_bswap32(b);
        float fa, fb;
        memcpy(&fa, &a, 4);
        memcpy(&fb, &b, 4);
        float s = fa + fb;
        uint32_t r;
        memcpy(&r, &s, 4);
        w[i] = __builtin_bswap32(r);
    }
}

/* one datagram of len bytes at h: taken (1) or left to Python (0).  fresh: just received, so its seq must be
 * the next expected and it counts towards the ack; 0: a datagram kept before its job started, whose seq and
 * ack were accounted for when it arrived (ring_replay) */
static int take(const int64_t *job, int64_t *st, const uint8_t *h, int64_t len, int32_t *out_idx, uint8_t *out_step,
                int fresh) {
    if (len < HLEN) return 0;
    const int64_t npk = job[J_NPK], n = job[J_N];
    const int64_t idx = find((const uint64_t *)job[J_KEYS], (const int32_t *)job[J_KEYIDX], npk,
                             ((uint64_t)be32(h + 16) << 32) | be32(h + 20));
    if (idx < 0) return 0;
    const uint8_t *row = (const uint8_t *)job[J_TABLE] + HLEN * idx;
    const int64_t step = h[3];
    if (step > 2 * n - 3 || (h[1] & FLAG_ACK) || h[0] != row[0] || h[2] != row[2]) return 0;
    if (memcmp(h + 4, row + 4, 22) != 0) return 0; /* job, iteration, rank, bucket, address, count */
    const uint16_t aux = be16(h + 26);
    if (aux != 0 && aux != ACK_REQUEST) return 0;
    const uint32_t seq = be32(h + 28);
    if (fresh && seq != (uint32_t)st[S_RCV_NEXT]) return 0;
    const int64_t count = be16(h + 24);
    if (len != HLEN + 4 * count) return 0;
    uint8_t *seen = (uint8_t *)job[J_SEEN];
    const int64_t key = step * npk + idx;
    if (seen[key]) return 0; /* not expected at this step from this rank, or a duplicate */
    /* commit: what _on_datagram + _on_data do for it */
    seen[key] = 1;
    if (fresh) {
        st[S_RCV_NEXT] = (uint32_t)(seq + 1u);
        st[S_ACK_DUE] += 1;
        if (aux) st[S_ACK_NOW] = 1;
    }
    uint32_t *dst = (uint32_t *)job[J_W] + ((const int64_t *)job[J_BOFF])[idx];
    if (step <= n - 2)
        add_wire(dst, h + HLEN, count);
    else
        memcpy(dst, h + HLEN, 4 * count);
    st[S_RECEIVED] += 1;
    st[S_TAKEN] += 1;
    if (step != 2 * n - 3) { /* all but the last all-gather hop go on */
        out_idx[st[S_NOUT]] = (int32_t)idx;
        out_step[st[S_NOUT]] = (uint8_t)(step + 1);
        st[S_NOUT] += 1;
    }
    return 1;
}

int ring_rx(int fd, uint8_t *rbuf, int64_t rbuf_len, const int64_t *job, int64_t *st, int32_t *out_idx,
            uint8_t *out_step) {
    for (;;) {
        if (st[S_RECVS] >= st[S_MAX_RECVS]) return R_LIMIT;
        if (st[S_NOUT] + rbuf_len / HLEN > st[S_MAX_OUT]) return R_FULL; /* room for a whole buffer's */
        struct iovec iov = {rbuf, (size_t)rbuf_len};
        union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
        struct msghdr m;
        memset(&m, 0, sizeof m);
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = ctl.buf;
        m.msg_controllen = sizeof ctl.buf;
        ssize_t nb = recvmsg(fd, &m, MSG_DONTWAIT);
        if (nb < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return R_AGAIN;
            st[S_ERRNO] = errno;
            return R_ERROR;
        }
        st[S_RECVS] += 1;
        int64_t seg = nb;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
            if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
                int s;
                memcpy(&s, CMSG_DATA(c), sizeof s);
                if (s > 0) seg = s;
            }
        }
        st[S_NBYTES] = nb;
        st[S_SEG] = seg;
        if (nb == 0) { st[S_AT] = 0; return R_REST; } /* an empty datagram: Python counts it */
        for (int64_t at = 0; at < nb; at += seg) {
            int64_t len = nb - at < seg ? nb - at : seg;
            if (!take(job, st, rbuf + at, len, out_idx, out_step, 1)) { st[S_AT] = at; return R_REST; }
            if (st[S_RECEIVED] == job[J_EXPECTED]) { st[S_AT] = at + seg; return R_DONE; }
        }
        st[S_AT] = nb;
        if (st[S_ACK_DUE] >= st[S_ACK_EVERY]) return R_ACK;
    }
}

/* A GRO batch of k datagrams of seg bytes at buf that arrived before its job started and was kept whole
 * (transport.py, _stash_batch: its seqs and acks were accounted for then), taken now that the job runs,
 * each datagram as ring_rx takes one but for the sequence check.  Returns how many, from the first, were
 * taken: it stops at the first one take() leaves to Python (which then takes the rest one by one and
 * raises the precise error), or when the forward list is full. */
int64_t ring_replay(const uint8_t *buf, int64_t k, int64_t seg, const int64_t *job, int64_t *st, int32_t *out_idx,
                    uint8_t *out_step) {
    int64_t j = 0;
    while (j < k && st[S_NOUT] < st[S_MAX_OUT] && take(job, st, buf + j * seg, seg, out_idx, out_step, 0)) j++;
    return j;
}

/* The pump's send (trainer_hooks/ring_sender.py, _pump) in one call: datagrams k = 0..m-1, each the header in
 * slot (s0 + k) & mask of hbuf (32 bytes, written by the pump) and the payload of plan packet idx[k] straight from
 * the job's wire-order bucket w (4 * cnt bytes at element boff), to addr -- what ring_arrays.send_datagrams does
 * with Python lists: each run of equal sizes (a shorter datagram may end one) one GSO message (UDP_SEGMENT) of at
 * most max_segs datagrams and max_bytes bytes, here up to SEND_VLEN messages per sendmmsg call.  *sent: the
 * datagrams that left.  Returns 0 when all left or the socket's buffer filled (the rest is a loss to the
 * protocol, resent on its timeout, as in Python), else the errno of the failed call (Python takes the rest). */
#define SEND_VLEN 16
#define MAX_SEGS 64
#ifdef __linux__
int ring_send(int fd, const void *addr, int64_t addrlen, const uint8_t *hbuf, int64_t s0, int64_t mask,
              const uint8_t *w, const int64_t *boff, const int64_t *cnt, const int64_t *idx, int64_t m,
              int64_t max_segs, int64_t max_bytes, int64_t *sent) {
    struct mmsghdr msgs[SEND_VLEN];
    struct iovec iov[SEND_VLEN * 2 * MAX_SEGS];
    union { char buf[CMSG_SPACE(sizeof(uint16_t))]; struct cmsghdr align; } ctl[SEND_VLEN];
    int64_t first[SEND_VLEN + 1]; /* the datagram each message starts with */
    if (max_segs > MAX_SEGS) max_segs = MAX_SEGS;
    *sent = 0;
    int64_t i = 0;
    while (i < m) {
        int nm = 0;
        int64_t niov = 0;
        while (i < m && nm < SEND_VLEN) {
            const int64_t size = HLEN + 4 * cnt[idx[i]];
            int64_t lim = max_bytes / size;
            if (lim > max_segs) lim = max_segs;
            if (lim < 1) lim = 1;
            int64_t j = i + 1;
            while (j < m && j - i < lim && HLEN + 4 * cnt[idx[j]] == size) j++;
            if (j < m && j - i < lim && HLEN + 4 * cnt[idx[j]] < size) j++; /* a shorter one can end a run */
            struct msghdr *h = &msgs[nm].msg_hdr;
            memset(h, 0, sizeof *h);
            h->msg_name = (void *)addr;
            h->msg_namelen = (socklen_t)addrlen;
            h->msg_iov = &iov[niov];
            h->msg_iovlen = (size_t)(2 * (j - i));
            for (int64_t k = i; k < j; k++) {
                iov[niov].iov_base = (void *)(hbuf + HLEN * ((s0 + k) & mask));
                iov[niov++].iov_len = HLEN;
                iov[niov].iov_base = (void *)(w + 4 * boff[idx[k]]);
                iov[niov++].iov_len = (size_t)(4 * cnt[idx[k]]);
            }
            if (j - i > 1) { /* the kernel cuts it into datagrams of `size` bytes, each with its own header */
                memset(&ctl[nm], 0, sizeof ctl[nm]);
                h->msg_control = ctl[nm].buf;
                h->msg_controllen = sizeof ctl[nm].buf;
                struct cmsghdr *c = CMSG_FIRSTHDR(h);
                c->cmsg_level = SOL_UDP;
                c->cmsg_type = UDP_SEGMENT;
                c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
                const uint16_t gso = (uint16_t)size;
                memcpy(CMSG_DATA(c), &gso, sizeof gso);
            }
            first[nm++] = i;
            i = j;
        }
        first[nm] = i;
        int r = sendmmsg(fd, msgs, (unsigned)nm, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR) { i = first[0]; continue; }
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return errno;
        }
        *sent = first[r];
        i = first[r]; /* a short count: the next call tells why (the error of the first unsent message) */
    }
    return 0;
}
#else /* no sendmmsg / UDP_SEGMENT: the pump's Python send takes every datagram */
int ring_send(int fd, const void *addr, int64_t addrlen, const uint8_t *hbuf, int64_t s0, int64_t mask,
              const uint8_t *w, const int64_t *boff, const int64_t *cnt, const int64_t *idx, int64_t m,
              int64_t max_segs, int64_t max_bytes, int64_t *sent) {
    (void)fd; (void)addr; (void)addrlen; (void)hbuf; (void)s0; (void)mask; (void)w; (void)boff; (void)cnt;
    (void)idx; (void)m; (void)max_segs; (void)max_bytes;
    *sent = 0;
    return ENOSYS;
}
#endif

/* dst[i] = src[i] / n in float32, stored in wire order (a job's start: the bucket divided, as torch's div_) */
WIDE_VARIANTS void to_wire_div(const float *restrict src, uint32_t *restrict dst, int64_t count, float n) {
    for (int64_t i = 0; i < count; i++) {
        float q = src[i] / n;
        uint32_t r;
        memcpy(&r, &q, 4);
        dst[i] = __builtin_bswap32(r);
    }
}

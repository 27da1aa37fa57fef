/* The shadow's receive loop for the common datagram, in C (shadow/ingest_native.py loads it).
 *
 * shadow/ingest.py's Reassembler.drain takes a batch of datagrams from the data socket; per datagram
 * its fast path is a recv, one header unpack, a dozen checks, a coverage scan and two slice copies --
 * some 2-3 us of Python each, cache-cold, 26 datagrams a shard and iteration on the default model.
 * shadow_drain does exactly that fast path and nothing else: a well-formed FINAL chunk of the job,
 * of an owned param, of an iteration that already has a buffer, none of whose elements arrived yet,
 * is copied into its slot (payload and coverage bytes) and counted.  At the first datagram that is
 * anything else -- a new iteration, a duplicate or overlap, a stale or probe iteration, another job,
 * an unowned param, a bad field, a short datagram -- it stops and leaves that datagram in the receive
 * buffer for the Python path (Reassembler.ingest), which decides and names what is wrong.  So the
 * compiled part has no rule of its own: every outcome it produces is one the Python path produces
 * for the same datagram (tests/shadow/test_ingest_native.py runs both on the same streams).
 *
 * Layout of the arrays (int64 unless said): lay[LAY_*] per param id (nparams each), slot rows of
 * ROW_LEN, st[] the slots below (enums checked by the Python side against its own names).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

enum { LAY_EB, LAY_BB, LAY_N, LAY_WD, LAY_ES, LAY_LEN };
enum { ROW_IT, ROW_BUF, ROW_COV, ROW_FILLED, ROW_TOTAL, ROW_TOUCHED, ROW_LEN };
enum { ST_JOB, ST_HEAD, ST_NPARAMS, ST_NROWS, ST_LIMIT, ST_TAKEN, ST_BYTES, ST_DONE, ST_COMPLETED, ST_PENDING,
       ST_ERRNO, ST_LEN };
enum { RC_AGAIN = 0, RC_REST = 1, RC_LIMIT = 2, RC_ERROR = -1 };

#define HDR 32
#define VERSION 1
#define FINAL 0x01
#define RETX 0x04

static inline uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint32_t be16(const uint8_t *p) { return ((uint32_t)p[0] << 8) | (uint32_t)p[1]; }

/* lay: LAY_LEN arrays of nparams int64, back to back; rows: st[ST_NROWS] rows of ROW_LEN */
int shadow_drain(int fd, uint8_t *rbuf, int64_t rlen, int64_t *st, const int64_t *lay, int64_t *rows)
{
    const int64_t np = st[ST_NPARAMS], nrows = st[ST_NROWS], job = st[ST_JOB], head = st[ST_HEAD];
    const int64_t *eb = lay + LAY_EB * np, *bb = lay + LAY_BB * np, *nn = lay + LAY_N * np;
    const int64_t *wd = lay + LAY_WD * np, *es = lay + LAY_ES * np;
    while (st[ST_TAKEN] < st[ST_LIMIT]) {
        ssize_t got = recv(fd, rbuf, (size_t)rlen, MSG_DONTWAIT);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return RC_AGAIN;
            if (errno == EINTR)
                continue;
            st[ST_ERRNO] = errno;
            return RC_ERROR;
        }
        const int64_t n = (int64_t)got;
        st[ST_PENDING] = n;
        if (n < HDR)
            return RC_REST;
        const uint8_t *h = rbuf;
        const uint32_t flags = h[1], dt = h[2];
        const int64_t jb = be32(h + 4), it = be32(h + 8), pid = be32(h + 16), off = be32(h + 20);
        const int64_t count = be16(h + 24);
        if (h[0] != VERSION || (flags != FINAL && flags != (FINAL | RETX)) || jb != job || pid >= np
            || eb[pid] < 0 || (int64_t)dt != wd[pid] || off + count > nn[pid] || count * es[pid] > n - HDR
            || it < head || it <= 0)
            return RC_REST;
        int64_t *row = 0;
        for (int64_t r = 0; r < nrows; r++)
            if (rows[r * ROW_LEN + ROW_IT] == it) {
                row = rows + r * ROW_LEN;
                break;
            }
        if (!row)
            return RC_REST; /* a new iteration: the Python path makes (or refuses) its buffer */
        uint8_t *cov = (uint8_t *)(intptr_t)row[ROW_COV];
        const int64_t e0 = eb[pid] + off;
        if (count && memchr(cov + e0, 1, (size_t)count))
            return RC_REST; /* a duplicate or an overlap: the Python path counts it */
        memset(cov + e0, 1, (size_t)count);
        const int64_t nb = count * es[pid];
        memcpy((uint8_t *)(intptr_t)row[ROW_BUF] + bb[pid] + off * es[pid], rbuf + HDR, (size_t)nb);
        row[ROW_FILLED] += count;
        row[ROW_TOUCHED] = 1;
        st[ST_TAKEN] += 1;
        st[ST_BYTES] += nb;
        st[ST_DONE] = row[ROW_FILLED] == row[ROW_TOTAL];
        if (st[ST_DONE])
            st[ST_COMPLETED] = 1;
        st[ST_PENDING] = -1;
    }
    return RC_LIMIT;
}

/* The shadow's Adam/AdamW step over a whole shard, float32, in two passes around torch's sqrt.
 *
 * shadow/merged.py steps one storage S = [params | exp_avg | exp_avg_sq] per shard; with torch's and
 * NumPy's kernels that is about ten calls per step, each a few microseconds of dispatch and a cold
 * pass over the shard.  These two functions do the same arithmetic in two passes:
 *
 *   adam_pre   params copied from the source copy (times 1 - lr * wd in the decayed ranges),
 *              exp_avg = lerp(exp_avg, grad, 1 - beta1), exp_avg_sq = exp_avg_sq * beta2 +
 *              (1 - beta2) * grad * grad
 *   sqrt       of exp_avg_sq: torch's own, which is not the correctly rounded one (torch's CPU
 *              sqrt is MKL's vsSqrt, about 0.3 % of results one ulp below sqrtf's).  adam_step calls
 *              the very function torch calls, through a pointer the caller found in torch's library;
 *              where there is none (a torch without MKL) the caller runs torch.sqrt between the passes.
 *   adam_post  denom = sqrt / bias_correction2_sqrt + eps; params += (-step_size * exp_avg) / denom
 *
 * Every operation is rounded as torch's CPU kernels round it, which is not always as written in
 * Python: torch's lerp is one fused multiply-add (weight < 0.5: fma(w, end - self, self); else
 * fma(w - 1, end - self, end)) and addcmul is fma(value * t1, t2, self), while addcdiv is
 * self + (value * t1) / t2 without fusion.  Built with -ffp-contract=off so the compiler fuses
 * nothing else.  No bits are taken on trust: the merged step runs this only where a probe at start-up
 * measured it bitwise equal to the trainer's own torch.optim step (shadow/merged.py, merged_is_exact).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

/* decay: ndecay pairs [a, b) of element indices, factor[k] = (float)(1 - lr * wd) of pair k */
void adam_pre(int64_t n, const float *p_src, float *p_dst, const int64_t *decay, const float *factor,
              int64_t ndecay, const float *m_src, float *m_dst, const float *v_src, float *v_dst,
              const float *g, float w1, float beta2, float w2)
{
    memcpy(p_dst, p_src, (size_t)n * sizeof(float));
    for (int64_t k = 0; k < ndecay; k++) {
        const float f = factor[k];
        for (int64_t i = decay[2 * k]; i < decay[2 * k + 1]; i++)
            p_dst[i] = p_src[i] * f;
    }
    if (fabsf(w1) < 0.5f) {
        for (int64_t i = 0; i < n; i++)
            m_dst[i] = fmaf(w1, g[i] - m_src[i], m_src[i]);
    } else {
        const float c = w1 - 1.0f;
        for (int64_t i = 0; i < n; i++)
            m_dst[i] = fmaf(c, g[i] - m_src[i], g[i]);
    }
    for (int64_t i = 0; i < n; i++)
        v_dst[i] = fmaf(w2 * g[i], g[i], v_src[i] * beta2);
}

/* d holds sqrt(exp_avg_sq) on entry (torch's); on return the denominator */
void adam_post(int64_t n, float *p, const float *m, float *d, float bc2_sqrt, float eps, float neg_step)
{
    for (int64_t i = 0; i < n; i++) {
        const float den = d[i] / bc2_sqrt + eps;
        d[i] = den;
        p[i] = p[i] + (neg_step * m[i]) / den;
    }
}

typedef void (*vsqrt_fn)(int n, const float *a, float *r);

/* adam_pre, the sqrt of exp_avg_sq into d with `vsqrt` (n < 2^31), adam_post: one call */
void adam_step(int64_t n, const float *p_src, float *p_dst, const int64_t *decay, const float *factor,
               int64_t ndecay, const float *m_src, float *m_dst, const float *v_src, float *v_dst,
               const float *g, float w1, float beta2, float w2, float *d, vsqrt_fn vsqrt, float bc2_sqrt,
               float eps, float neg_step)
{
    adam_pre(n, p_src, p_dst, decay, factor, ndecay, m_src, m_dst, v_src, v_dst, g, w1, beta2, w2);
    vsqrt((int)n, v_dst, d);
    adam_post(n, p_dst, m_dst, d, bc2_sqrt, eps, neg_step);
}

/* A CUDA trainer's Adam/AdamW step as torch's CUDA kernels round it (shadow/device_optim.py, which
 * holds the NumPy version of the same arithmetic and the recording it matches), in place, one pass:
 *
 *   grad     -grad when maximize; AdamW: p = p * decay (decay = (float)(1 - lr * wd), 1 when wd = 0);
 *            Adam with L2 (l2_on): grad = fma(l2, p, grad)
 *   exp_avg  lerp: |w1| < 0.5 ? fma(w1, g - m, m) : fma(w1 - 1, g - m, g)
 *   exp_avg_sq  v * beta2, then fma(g * g, w2, v)      (addcmul_: the product g * g rounded first)
 *   amsgrad  vmax = maximum(vmax, v) (NaN wins, as torch.maximum)
 *   denom    sqrtf (correctly rounded, as CUDA's) of v or vmax, then times bc2 (mode 0: the per-tensor
 *            step divides by a Python float, which CUDA does as a multiplication by its reciprocal)
 *            or divided by bc2 (mode 1: _foreach_div_ by a scalar list), plus eps
 *   param    fma(step, m / denom, p)                    (addcdiv_: the quotient rounded first)
 */
void cuda_adam(int64_t n, float *p, const float *g, float *m, float *v, float *vmax, int32_t maximize,
               float decay, int32_t l2_on, float l2, float w1, float beta2, float w2, int32_t mode, float bc2,
               float eps, float step)
{
    const int lerp_low = fabsf(w1) < 0.5f;
    const float w1m = w1 - 1.0f;
    for (int64_t i = 0; i < n; i++) {
        float gi = maximize ? -g[i] : g[i];
        float pi = p[i];
        if (decay != 1.0f)
            pi = pi * decay;
        if (l2_on)
            gi = fmaf(l2, pi, gi);
        const float mi = lerp_low ? fmaf(w1, gi - m[i], m[i]) : fmaf(w1m, gi - m[i], gi);
        float vi = v[i] * beta2;
        vi = fmaf(gi * gi, w2, vi);
        float r = vi;
        if (vmax) {
            const float a = vmax[i];
            r = (isnan(a) || isnan(vi)) ? (isnan(a) ? a : vi) : (vi > a ? vi : a);
            vmax[i] = r;
        }
        const float root = sqrtf(r);
        const float den = (mode == 0 ? root * bc2 : root / bc2) + eps;
        m[i] = mi;
        v[i] = vi;
        p[i] = fmaf(step, mi / den, pi);
    }
}

/*
 * Throughput of the integer multiply instructions that Montgomery
 * multiplication on 32-bit words is made of, on the GPU it runs on:
 * SMSP cycles per warp instruction, each kernel a long unrolled loop of one
 * instruction kind over 8 independent chains per thread, operands varying
 * per thread and iteration (ptxas cannot hoist them), grid 16 blocks of
 * 256 per SM.  The SASS each PTX form becomes is printed by
 *   cuobjdump -sass imad_rates | grep -oE 'IMAD[.A-Z0-9]*|IADD3[.A-Z]*' | sort | uniq -c
 * Standalone (not part of the build; bench/RESULTS.md, "The Fp multiply's
 * floor on the H200"):
 *   nvcc -O3 -arch=sm_90 -o /tmp/imad_rates bench/cuda/imad_rates.cu && /tmp/imad_rates
 */
#include <cstdint>
#include <cstdio>

#define N_IT 2048
#define CH 8

template <int K> __global__ void k_rate(uint32_t *out, uint32_t seed)
{
    uint32_t x = seed * (threadIdx.x + 7) | 1, y = seed ^ (threadIdx.x * 0x9e3779b9u);
    uint32_t r[CH];
    uint64_t w[CH];
#pragma unroll
    for (int i = 0; i < CH; i++) {
        r[i] = threadIdx.x * 31 + i * 0x12345;
        w[i] = r[i];
    }
    for (int it = 0; it < N_IT; it++) {
#pragma unroll
        for (int i = 0; i < CH; i++) {
            if (K == 0) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(r[i]) : "r"(x), "r"(y));
            if (K == 1) asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(r[i]) : "r"(x), "r"(y));
            if (K == 2) {
                uint32_t lo = (uint32_t)w[i];
                asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(w[i]) : "r"(lo), "r"(x));
            }
            if (K == 3)
                asm volatile("{mad.lo.cc.u32 %0, %0, %1, %2;\n madc.hi.u32 %2, %0, %1, %2;}"
                             : "+r"(r[i]), "+r"(y) : "r"(x));
            if (K == 4) asm volatile("add.cc.u32 %0, %0, %1;\n addc.u32 %1, %1, %0;" : "+r"(r[i]), "+r"(y));
            if (K == 5) /* the CIOS step: lo and hi of one product into a word pair */
                asm volatile("{mad.lo.cc.u32 %0, %2, %3, %0;\n madc.hi.cc.u32 %1, %2, %3, %1;\n"
                             " addc.u32 %3, %3, 1;}"
                             : "+r"(r[i]), "+r"(y), "+r"(x) : "r"(r[(i + 1) % CH]));
        }
    }
    uint32_t s = y;
#pragma unroll
    for (int i = 0; i < CH; i++) s += r[i] + (uint32_t)w[i] + (uint32_t)(w[i] >> 32);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int K> static void run(const char *name, int per_chain_step)
{
    int sms = 0, clk = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0); /* kHz */
    unsigned blocks = (unsigned)sms * 16;
    uint32_t *d;
    if (cudaMalloc(&d, (size_t)blocks * 256 * 4) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return;
    }
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    k_rate<K><<<blocks, 256>>>(d, 12345); /* warm-up */
    cudaEventRecord(a);
    k_rate<K><<<blocks, 256>>>(d, 12345);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    double warp_inst = (double)blocks * 256 / 32 * N_IT * CH * per_chain_step;
    double smsp_cycles = ms * 1e-3 * clk * 1e3 * sms * 4;
    printf("%-34s %8.3f ms  %.2f SMSP cycles per warp instruction\n", name, ms, smsp_cycles / warp_inst);
    cudaFree(d);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}

int main()
{
    run<0>("mad.lo.u32 (IMAD)", 1);
    run<1>("mad.hi.u32 (IMAD.HI)", 1);
    run<2>("mad.wide.u32 (IMAD.WIDE, 64-bit acc)", 1);
    run<3>("mad.lo.cc + madc.hi (CIOS pair)", 2);
    run<4>("add.cc + addc", 2);
    run<5>("mad.lo.cc + madc.hi.cc, same product", 3);
    return 0;
}

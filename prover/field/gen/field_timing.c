/*
 * Throwaway timing loop for the field layer (not a benchmark suite: the
 * Google Benchmark shim lives in bench/).  Each figure is the best mean over
 * 300 short windows of a dependent chain (latency), which filters out
 * preemption on a shared machine.  Not compiled by the Makefile.
 *
 *   make build/lib/field.a build/lib/common.a
 *   gcc -O2 -march=native -I. prover/field/gen/field_timing.c \
 *       build/lib/field.a build/lib/common.a -lm -o /tmp/field_timing && /tmp/field_timing
 */
#include "prover/field/field.h"
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
#define BEST(label, N, stmt) do{ double best=1e18; for(int rep=0;rep<300;rep++){ double t=now(); for(long i=0;i<(N);i++){stmt;} double d=(now()-t)/(N); if(d<best)best=d;} printf("%-12s %8.2f ns\n",label,best);}while(0)
int main(void){
  gs_rng r; gs_rng_seed(&r,1);
  gs_fp a,b; gs_fp_random(&a,&r); gs_fp_random(&b,&r);
  gs_fr x,y; gs_fr_random(&x,&r); gs_fr_random(&y,&r);
  gs_fp2 c,d; gs_fp2_random(&c,&r); gs_fp2_random(&d,&r);
  gs_fp6 g,h; gs_fp6_random(&g,&r); gs_fp6_random(&h,&r);
  gs_fp12 e,f; gs_fp12_random(&e,&r); gs_fp12_random(&f,&r);
  BEST("fp_mul",20000, gs_fp_mul(&a,&a,&b));
  BEST("fp_sqr",20000, gs_fp_sqr(&a,&a));
  BEST("fp_add",20000, gs_fp_add(&a,&a,&b));
  BEST("fp_sub",20000, gs_fp_sub(&a,&a,&b));
  BEST("fr_mul",20000, gs_fr_mul(&x,&x,&y));
  BEST("fr_add",20000, gs_fr_add(&x,&x,&y));
  BEST("fp2_mul",5000, gs_fp2_mul(&c,&c,&d));
  BEST("fp2_sqr",5000, gs_fp2_sqr(&c,&c));
  BEST("fp6_mul",500, gs_fp6_mul(&g,&g,&h));
  BEST("fp12_mul",200, gs_fp12_mul(&e,&e,&f));
  BEST("fp12_cyc_sqr",200, gs_fp12_cyclotomic_sqr(&e,&e));
  BEST("fp12_sqr",200, gs_fp12_sqr(&e,&e));
  BEST("fp_inv",10, gs_fp_inv(&a,&a));
  BEST("fp_inv_var",30, gs_fp_inv_var(&a,&a));
  BEST("fr_inv",10, gs_fr_inv(&x,&x));
  BEST("fr_inv_var",30, gs_fr_inv_var(&x,&x));
  BEST("fp_sqrt",10, gs_fp_sqrt(&b,&a));
  BEST("fp2_sqrt",3, gs_fp2_sqrt(&d,&c));
  printf("%lx %lx %lx %lx %lx\n",a.l[0],x.l[0],c.c0.l[0],e.c0.c0.c0.l[0],g.c0.c0.l[0]+b.l[0]+d.c0.l[0]);
}

/*
 * histogram2d-vs-serial.c - gpgpu_histogram2d (256 x 256) and
 * gpgpu_histogram_weighted (256 bins) of f32 host arrays against plain serial
 * C loops in the same run, best of 5, three rounds (the CPU machine is
 * shared: only ratios taken together mean anything). From a build tree:
 *   cc -O2 -I$SRC/include -Iinclude $SRC/bench/histogram2d-vs-serial.c \
 *      .libs/libgpgpu.so -Wl,-rpath,$PWD/.libs -o /tmp/h2d && /tmp/h2d 24
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpgpu.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static void serial(const float *x,const float *y,size_t n,uint64_t *b){
  memset(b,0,65536*8);
  const float sx=256.0f/2000.0f, sy=256.0f/2000.0f;
  for(size_t i=0;i<n;i++){float a=x[i],c=y[i];
    if(a>=-1000.0f&&a<1000.0f&&c>=-1000.0f&&c<1000.0f){unsigned bx=(unsigned)((a+1000.0f)*sx),by=(unsigned)((c+1000.0f)*sy);
      bx = bx > 255 ? 255 : bx; by = by > 255 ? 255 : by; b[bx*256+by]++;}}
}
static void serialw(const float *x,const float *w,size_t n,double *b){
  memset(b,0,256*8);
  const float sx=256.0f/2000.0f;
  for(size_t i=0;i<n;i++){float a=x[i];
    if(a>=-1000.0f&&a<1000.0f){unsigned bx=(unsigned)((a+1000.0f)*sx); bx = bx > 255 ? 255 : bx; b[bx]+=w[i];}}
}
int main(int argc,char**argv){
  size_t n=(size_t)1<<(argc>1?atoi(argv[1]):24); int reps=5;
  gpgpu_context*ctx; if(gpgpu_context_create(&ctx,getenv("DEV")))return 1;
  printf("%s\n",gpgpu_device_name(ctx));
  float*x=malloc(n*4),*y=malloc(n*4),*w=malloc(n*4);
  srand(1); for(size_t i=0;i<n;i++){x[i]=(rand()/(float)RAND_MAX)*2200-1100;y[i]=(rand()/(float)RAND_MAX)*2200-1100;w[i]=rand()/(float)RAND_MAX;}
  uint64_t*b=malloc(65536*8),*r=malloc(65536*8); double*d=malloc(65536*8),*dr=malloc(65536*8);
  gpgpu_histogram2d(ctx,GPGPU_F32,x,y,n,256,-1000,1000,256,-1000,1000,b);
  gpgpu_histogram_weighted(ctx,GPGPU_F32,x,GPGPU_F32,w,n,256,-1000,1000,d);
  for(int k=0;k<3;k++){
  double best_s=1e9,best_l=1e9,best_sw=1e9,best_lw=1e9;
  for(int i=0;i<reps;i++){double t=now();serial(x,y,n,r);t=now()-t;if(t<best_s)best_s=t;
    t=now();gpgpu_histogram2d(ctx,GPGPU_F32,x,y,n,256,-1000,1000,256,-1000,1000,b);t=now()-t;if(t<best_l)best_l=t;
    t=now();serialw(x,w,n,dr);t=now()-t;if(t<best_sw)best_sw=t;
    t=now();gpgpu_histogram_weighted(ctx,GPGPU_F32,x,GPGPU_F32,w,n,256,-1000,1000,d);t=now()-t;if(t<best_lw)best_lw=t;}
  printf("n=%zu 2d256x256: serial %.2f ms lib %.2f ms ratio %.2f | weighted256: serial %.2f ms lib %.2f ms ratio %.2f | same=%d\n",n,best_s*1e3,best_l*1e3,best_s/best_l,best_sw*1e3,best_lw*1e3,best_sw/best_lw,!memcmp(b,r,65536*8));
  }
  return 0;}

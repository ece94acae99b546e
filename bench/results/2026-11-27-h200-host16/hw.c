/* histogram_weighted on the host fallback against plain loops, best of R */
#include <gpgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n = strtoul(argv[1],0,0); int reps = atoi(argv[2]); size_t nb=256;
  gpgpu_context *ctx; gpgpu_context_create(&ctx, "host");
  float *x=malloc(n*4),*w=malloc(n*4); double *wd=malloc(n*8), bins[256], b2[256];
  srand(1); for(size_t i=0;i<n;i++){x[i]=(float)rand()/((float)RAND_MAX+1); w[i]=(float)rand()/RAND_MAX; wd[i]=w[i];}
  double t[4]={1e9,1e9,1e9,1e9};
  for(int r=0;r<reps;r++){
    double a=now(); gpgpu_histogram_weighted(ctx,GPGPU_F32,x,GPGPU_F32,w,n,nb,0,1,bins);
    double b=now(); gpgpu_histogram_weighted(ctx,GPGPU_F32,x,GPGPU_F64,wd,n,nb,0,1,bins);
    double c=now(); memset(b2,0,sizeof b2); const float s=(float)nb;
    for(size_t i=0;i<n;i++){ size_t k=(size_t)(x[i]*s); b2[k<nb?k:nb-1]+=w[i]; }
    __asm__ volatile(""::"r"(b2):"memory");
    double d=now(); memset(b2,0,sizeof b2);
    for(size_t i=0;i<n;i++){ float v=x[i]; if(!(v>=0.f&&v<1.f)) continue; size_t k=(size_t)(v*s); b2[k<nb?k:nb-1]+=(double)w[i]; }
    __asm__ volatile(""::"r"(b2):"memory");
    double e=now();
    if(b-a<t[0])t[0]=b-a; if(c-b<t[1])t[1]=c-b; if(d-c<t[2])t[2]=d-c; if(e-d<t[3])t[3]=e-d;
  }
  printf("n=%zu us: lib f32w %.2f lib f64w %.2f loop %.2f loop+range %.2f  ratio f32w %.2f\n",n,t[0]*1e6,t[1]*1e6,t[2]*1e6,t[3]*1e6,t[2]/t[0]);
  return 0;
}

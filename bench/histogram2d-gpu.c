/*
 * histogram2d-gpu.c - kernel time (profiling events) of
 * gpgpu_histogram2d_buffer (256 x 256), gpgpu_histogram_weighted_buffer (256
 * bins) and gpgpu_histogram2d_weighted_buffer on 2^N f32 samples, as a
 * fraction of clEnqueueCopyBuffer bandwidth on the same device. Build against
 * an install (see ../shared/gpu/prepare --build):
 *   cc -O2 -I.gpu/install/include bench/histogram2d-gpu.c -L.gpu/install/lib \
 *      -lgpgpu -lOpenCL -o .gpu/histogram2d-gpu && .gpu/histogram2d-gpu 28
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpgpu_cl.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static double ev_ms(cl_event e){cl_ulong a,b;clGetEventProfilingInfo(e,CL_PROFILING_COMMAND_START,8,&a,NULL);clGetEventProfilingInfo(e,CL_PROFILING_COMMAND_END,8,&b,NULL);return (b-a)*1e-6;}
static double kernels_ms(gpgpu_context*ctx){const gpgpu_kernel_time*r;size_t k=gpgpu_profile(ctx,&r);if(!k)return -1;uint64_t s=r[0].start_ns,e=r[0].end_ns;for(size_t i=1;i<k;i++){if(r[i].start_ns<s)s=r[i].start_ns;if(r[i].end_ns>e)e=r[i].end_ns;}return (e-s)*1e-6;}
int main(int argc,char**argv){
  size_t n=(size_t)1<<(argc>1?atoi(argv[1]):28);
  gpgpu_context*ctx; if(gpgpu_context_create(&ctx,NULL)){printf("no ctx\n");return 1;}
  printf("device %s\nplan %s\n",gpgpu_device_name(ctx),gpgpu_plan_description(ctx));
  gpgpu_set_profiling(ctx,1);
  cl_command_queue q=gpgpu_queue(ctx); cl_context cl; clGetCommandQueueInfo(q,CL_QUEUE_CONTEXT,sizeof cl,&cl,NULL);
  float*x=malloc(n*4); srand(1);
  cl_int err; cl_mem bx=clCreateBuffer(cl,CL_MEM_READ_WRITE,n*4,NULL,&err),by=clCreateBuffer(cl,CL_MEM_READ_WRITE,n*4,NULL,&err),bw=clCreateBuffer(cl,CL_MEM_READ_WRITE,n*4,NULL,&err),bc=clCreateBuffer(cl,CL_MEM_READ_WRITE,n*4,NULL,&err);
  cl_mem out=clCreateBuffer(cl,CL_MEM_READ_WRITE,65536*8,NULL,&err);
  for(int k=0;k<3;k++){for(size_t i=0;i<n;i++)x[i]=k==2?(float)rand()/RAND_MAX:((float)rand()/RAND_MAX)*2200-1100; clEnqueueWriteBuffer(q,k==0?bx:k==1?by:bw,CL_TRUE,0,n*4,x,0,NULL,NULL);}
  /* copy bandwidth: 2 x n x 4 bytes per copy of x */
  double best_copy=1e9; for(int r=0;r<5;r++){cl_event e;clEnqueueCopyBuffer(q,bx,bc,0,0,n*4,0,NULL,&e);clWaitForEvents(1,&e);double t=ev_ms(e);if(t<best_copy)best_copy=t;clReleaseEvent(e);}
  double copy_bw=2.0*n*4/(best_copy*1e-3);
  printf("copy %zu MiB: %.3f ms = %.0f GB/s (read+write)\n",n*4>>20,best_copy,copy_bw/1e9);
  const char*names[]={"histogram2d 256x256","histogram_weighted 256 (f32 w)","histogram2d_weighted 256x256"};
  for(int c=0;c<3;c++){double best=1e9,wall=1e9;
    for(int r=0;r<6;r++){cl_event done; double t0=now(); gpgpu_status s;
      if(c==0)s=gpgpu_histogram2d_buffer(ctx,GPGPU_F32,bx,0,by,0,n,256,-1000,1000,256,-1000,1000,out,0,0,NULL,&done);
      else if(c==1)s=gpgpu_histogram_weighted_buffer(ctx,GPGPU_F32,bx,0,GPGPU_F32,bw,0,n,256,-1000,1000,out,0,0,NULL,&done);
      else s=gpgpu_histogram2d_weighted_buffer(ctx,GPGPU_F32,bx,0,by,0,GPGPU_F32,bw,0,n,256,-1000,1000,256,-1000,1000,out,0,0,NULL,&done);
      if(s){printf("%s failed: %s\n",names[c],gpgpu_last_error(ctx));break;}
      clWaitForEvents(1,&done);double w=(now()-t0)*1e3;clReleaseEvent(done);
      double k=kernels_ms(ctx); if(r>0&&k<best)best=k; if(r>0&&w<wall)wall=w;}
    double bytes=c==0?8.0*n:c==1?8.0*n:12.0*n;
    printf("%s n=2^%d: kernels %.3f ms (wall %.3f), %.0f GB/s read = %.2f of copy bandwidth, %.1f Gsamples/s\n",names[c],argc>1?atoi(argv[1]):28,best,wall,bytes/(best*1e-3)/1e9,bytes/(best*1e-3)/copy_bw,n/(best*1e-3)/1e9);
    const gpgpu_kernel_time*rec;size_t k=gpgpu_profile(ctx,&rec);for(size_t i=0;i<k;i++)printf("   %s %zu/%zu %.3f ms\n",rec[i].kernel,rec[i].global_size,rec[i].local_size,(rec[i].end_ns-rec[i].start_ns)*1e-6);
  }
  return 0;}

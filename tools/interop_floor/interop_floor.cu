// gausslab-interop-floor: what the GL <-> CUDA hand-over costs a frame on this machine, with no
// gausslab code in between, so that the viewer's frame can be read against the platform's floor.
//
// An OpenGL 3.3 context from the EGL device platform (no window), a registered RGBA8 texture of
// the source size and a framebuffer of the view size. Each "frame" is, by case:
//   gl        a full-screen triangle sampling the texture into the framebuffer
//   cuda      a kernel writing source-size pixels into device memory (no GL object)
//   both      the two above, in turn, with no synchronisation between the APIs
//   interop   map the texture for CUDA, write it through a surface, unmap, then the GL draw
//             (the viewer's hand-over); interop-finish adds glFinish each frame, interop-2
//             alternates two textures, interop-pairs maps four textures two at a time (one map
//             call every other frame) and unmaps each after its write
//   blit      glBlitFramebuffer of the texture into the framebuffer (no shader: what showing an
//             image CUDA made at the view's size would cost); clear: glClear alone (GL's floor);
//             interop-blit and interop-pairs-blit: those hand-overs with the blit for the draw
// Each line also gives the host's time a frame in the map and unmap calls and in the GL calls.
// 50 frames of warm-up, then 1000 timed on the host clock (glFinish and a stream sync at the end).
// Two rounds of every case at 16×16 (the fixed cost) and 3840×2160 in a 1920×1080 view.
//
// Measured on the H200 (2026-12-03, docs/results/h200/interop-floor.txt): both 0.008–0.011 ms a frame at 16×16,
// interop 0.34 ms, interop-pairs 0.18 ms: the map, not the switch between GL and CUDA nor the unmap,
// is the fixed cost (about 0.33 ms of the GPU's time per call, two textures costing what one does),
// and the host spends under 0.01 ms in each call. A glClear of 1920×1080 alone takes 0.152 ms, a
// bare draw or a blit of that size 0.153–0.173: every pass over the framebuffer costs its pixels.
#include <glad/gl.h>  // before EGL, which must not pull in another GL header

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "gausslab-interop-floor: %s: %s\n", what, cudaGetErrorString(error));
  std::exit(1);
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "gausslab-interop-floor: %s\n", why.c_str());
  std::exit(1);
}

__global__ void fill_buffer(uchar4* pixels, int count, int frame) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) pixels[i] = make_uchar4(static_cast<unsigned char>(i), static_cast<unsigned char>(frame), 0, 255);
}

__global__ void fill_surface(cudaSurfaceObject_t surface, int width, int height, int frame) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    surf2Dwrite(make_uchar4(static_cast<unsigned char>(x), static_cast<unsigned char>(y),
                            static_cast<unsigned char>(frame), 255),
                surface, x * 4, y);
}

GLuint compile(GLenum type, const char* source) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2000] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    fail(std::string("a shader did not compile: ") + log);
  }
  return shader;
}

void open_context() {
  auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  EGLDeviceEXT devices[8];
  EGLint count = 0;
  if (!query_devices || !platform_display || !query_devices(8, devices, &count) || count == 0)
    fail("no EGL device (this tool needs the NVIDIA driver's EGL device platform)");
  const EGLDisplay display = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[0], nullptr);
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor) || !eglBindAPI(EGL_OPENGL_API)) fail("EGL has no desktop OpenGL here");
  // A pbuffer-capable config (the device platform has no window configs); the context stays surfaceless.
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configs = 0;
  if (!eglChooseConfig(display, config_attributes, &config, 1, &configs) || configs == 0) fail("no OpenGL config");
  const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                       EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  const EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
  if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
    fail("no surfaceless OpenGL 3.3 context");
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) fail("glad could not load OpenGL");
}

struct Case {
  const char* mode;
  int source_w, source_h, view_w, view_h;
};

struct HostTimes {
  double map = 0, unmap = 0, gl = 0;  // ms in all the timed frames
};

double since_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double frame_ms(const Case& c, GLuint program, GLuint vao, cudaStream_t stream, HostTimes& host) {
  const std::string mode = c.mode;
  const bool blit = mode == "blit" || mode.find("-blit") != std::string::npos, clear = mode == "clear";
  const bool gl = mode != "cuda", cuda = mode != "gl" && mode != "blit" && mode != "clear";
  const bool interop = mode.compare(0, 7, "interop") == 0;
  const bool finish = mode == "interop-finish", two = mode == "interop-2";
  const bool pairs = mode.compare(0, 13, "interop-pairs") == 0;
  constexpr int kTextures = 4;
  GLuint textures[kTextures];
  glGenTextures(kTextures, textures);
  cudaGraphicsResource_t resources[kTextures] = {};
  for (int k = 0; k < kTextures; ++k) {
    glBindTexture(GL_TEXTURE_2D, textures[k]);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, c.source_w, c.source_h);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    check(cudaGraphicsGLRegisterImage(&resources[k], textures[k], GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore),
          "registering the texture");
  }
  GLuint framebuffer = 0, colour = 0;
  glGenFramebuffers(1, &framebuffer);
  glGenTextures(1, &colour);
  glBindTexture(GL_TEXTURE_2D, colour);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, c.view_w, c.view_h);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, colour, 0);
  glViewport(0, 0, c.view_w, c.view_h);
  GLuint read_framebuffers[kTextures];  // each texture as a blit's source
  glGenFramebuffers(kTextures, read_framebuffers);
  for (int k = 0; k < kTextures; ++k) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, read_framebuffers[k]);
    glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, textures[k], 0);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  uchar4* buffer = nullptr;
  const int pixels = c.source_w * c.source_h;
  check(cudaMalloc(&buffer, static_cast<std::size_t>(pixels) * 4), "cudaMalloc");

  bool timing = false;
  auto frame = [&](int f) {
    const int k = two ? f & 1 : pairs ? f & 3 : 0;
    if (cuda && interop) {
      auto start = std::chrono::steady_clock::now();
      if (!pairs) check(cudaGraphicsMapResources(1, &resources[k], stream), "map");
      else if ((f & 1) == 0) check(cudaGraphicsMapResources(2, &resources[k], stream), "map two");
      if (timing) host.map += since_ms(start);
      cudaArray_t array = nullptr;
      check(cudaGraphicsSubResourceGetMappedArray(&array, resources[k], 0, 0), "mapped array");
      cudaResourceDesc desc{};
      desc.resType = cudaResourceTypeArray;
      desc.res.array.array = array;
      cudaSurfaceObject_t surface = 0;
      check(cudaCreateSurfaceObject(&surface, &desc), "surface");
      const dim3 block(32, 8), grid((c.source_w + 31) / 32, (c.source_h + 7) / 8);
      fill_surface<<<grid, block, 0, stream>>>(surface, c.source_w, c.source_h, f);
      start = std::chrono::steady_clock::now();
      check(cudaGraphicsUnmapResources(1, &resources[k], stream), "unmap");
      if (timing) host.unmap += since_ms(start);
      check(cudaDestroySurfaceObject(surface), "destroying the surface");
    } else if (cuda) {
      fill_buffer<<<(pixels + 255) / 256, 256, 0, stream>>>(buffer, pixels, f);
    }
    if (gl) {
      const auto start = std::chrono::steady_clock::now();
      if (clear) {
        glClear(GL_COLOR_BUFFER_BIT);
      } else if (blit) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, read_framebuffers[k]);
        const bool same = c.source_w == c.view_w && c.source_h == c.view_h;
        glBlitFramebuffer(0, 0, c.source_w, c.source_h, 0, 0, c.view_w, c.view_h, GL_COLOR_BUFFER_BIT,
                          same ? GL_NEAREST : GL_LINEAR);
      } else {
        glUseProgram(program);
        glBindVertexArray(vao);
        glBindTexture(GL_TEXTURE_2D, textures[k]);
        glDrawArrays(GL_TRIANGLES, 0, 3);
      }
      glFlush();
      if (finish) glFinish();
      if (timing) host.gl += since_ms(start);
    }
  };
  for (int f = 0; f < 50; ++f) frame(f);
  glFinish();
  check(cudaStreamSynchronize(stream), "warm-up");
  constexpr int kFrames = 1000;
  timing = true;
  const auto start = std::chrono::steady_clock::now();
  for (int f = 0; f < kFrames; ++f) frame(f);
  glFinish();
  check(cudaStreamSynchronize(stream), "the timed frames");
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kFrames;
  for (cudaGraphicsResource_t resource : resources) check(cudaGraphicsUnregisterResource(resource), "unregistering");
  check(cudaFree(buffer), "cudaFree");
  host.map /= kFrames;
  host.unmap /= kFrames;
  host.gl /= kFrames;
  glDeleteTextures(kTextures, textures);
  glDeleteTextures(1, &colour);
  glDeleteFramebuffers(kTextures, read_framebuffers);
  glDeleteFramebuffers(1, &framebuffer);
  return ms;
}

}  // namespace

int main() {
  open_context();
  std::printf("renderer: %s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
  const char* vertex =
      "#version 330 core\nout vec2 uv;\nvoid main() { vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);\n"
      "  uv = p; gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0); }\n";
  const char* fragment =
      "#version 330 core\nin vec2 uv;\nuniform sampler2D image;\nout vec4 colour;\n"
      "void main() { colour = texture(image, uv); }\n";
  const GLuint program = glCreateProgram();
  glAttachShader(program, compile(GL_VERTEX_SHADER, vertex));
  glAttachShader(program, compile(GL_FRAGMENT_SHADER, fragment));
  glLinkProgram(program);
  GLuint vao = 0;
  glGenVertexArrays(1, &vao);
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const std::vector<Case> cases = {
      {"gl", 16, 16, 16, 16},           {"cuda", 16, 16, 16, 16},           {"both", 16, 16, 16, 16},
      {"interop", 16, 16, 16, 16},      {"interop-finish", 16, 16, 16, 16}, {"gl", 3840, 2160, 1920, 1080},
      {"cuda", 3840, 2160, 1920, 1080}, {"both", 3840, 2160, 1920, 1080},   {"interop", 3840, 2160, 1920, 1080},
      {"interop-finish", 3840, 2160, 1920, 1080}, {"interop-2", 3840, 2160, 1920, 1080},
      {"interop-pairs", 16, 16, 16, 16}, {"interop-pairs", 3840, 2160, 1920, 1080},
      // What GL's drawing costs by itself: the view's size, a shader against a blit, the floor.
      {"clear", 16, 16, 1920, 1080},    {"gl", 1920, 1080, 1920, 1080},     {"gl", 3840, 2160, 960, 540},
      {"blit", 1920, 1080, 1920, 1080}, {"blit", 3840, 2160, 1920, 1080},
      {"interop-blit", 1920, 1080, 1920, 1080}, {"interop-pairs-blit", 1920, 1080, 1920, 1080}};
  for (int round = 0; round < 2; ++round)
    for (const Case& c : cases) {
      HostTimes host;
      const double ms = frame_ms(c, program, vao, stream, host);
      std::printf("round %d  %-15s source %dx%d  view %dx%d  %.4f ms a frame  (host: map %.4f, unmap %.4f, gl %.4f)\n",
                  round, c.mode, c.source_w, c.source_h, c.view_w, c.view_h, ms, host.map, host.unmap, host.gl);
    }
  return 0;
}

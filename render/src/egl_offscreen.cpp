// The offscreen surface: an OpenGL 3.3 core context from EGL with no window system.
//
// On the GPU server (no X) the NVIDIA driver offers OpenGL through the EGL device platform, and
// CUDA–GL interop works there; on CI and this build machine Mesa's EGL gives llvmpipe. glvnd may
// list devices of several vendors, so NVIDIA devices are tried first (the one CUDA uses before
// others, matched by EGL_NV_device_cuda), then the rest, then Mesa's surfaceless platform, then the
// default display. Each attempt's failure is kept for the final message.
#include "gausslab/render/egl_offscreen.hpp"

#include "gl_util.hpp"  // glad before EGL, which must not pull in another GL header

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gausslab/render/gl_error.hpp"

namespace gausslab {

namespace {

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t length = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += length) {
    const bool starts = p == list || p[-1] == ' ';
    const bool ends = p[length] == '\0' || p[length] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

const char* egl_error_name(EGLint error) {
  switch (error) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "an unknown EGL error";
  }
}

std::string egl_failure(const char* step) { return std::string(step) + " failed (" + egl_error_name(eglGetError()) + ")"; }

template <class Fn>
Fn egl_function(const char* name) {
  return reinterpret_cast<Fn>(eglGetProcAddress(name));
}

GLADapiproc load_gl_function(const char* name) { return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name)); }

enum class Kind { Device, Surfaceless, Default };

struct Candidate {
  Kind kind = Kind::Default;
  EGLenum platform = 0;  // 0: eglGetDisplay(EGL_DEFAULT_DISPLAY)
  void* native = nullptr;
  std::string description;
  int rank = 0;  // lower is tried first
};

// A display with a current OpenGL 3.3 core context, or the reason there is none.
struct Opened {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  std::string failure;
  bool surfaceless = false;
};

void close(Opened& opened) {
  if (opened.display == EGL_NO_DISPLAY) return;
  eglMakeCurrent(opened.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (opened.surface != EGL_NO_SURFACE) eglDestroySurface(opened.display, opened.surface);
  if (opened.context != EGL_NO_CONTEXT) eglDestroyContext(opened.display, opened.context);
  eglTerminate(opened.display);
  opened = Opened{};
}

Opened open_context(const Candidate& candidate) {
  Opened opened;
  if (candidate.platform == 0) {
    opened.display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  } else {
    auto get_platform_display = egl_function<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
    if (!get_platform_display) {
      opened.failure = "eglGetPlatformDisplayEXT is missing";
      return opened;
    }
    opened.display = get_platform_display(candidate.platform, candidate.native, nullptr);
  }
  if (opened.display == EGL_NO_DISPLAY) {
    opened.failure = egl_failure("getting the display");
    return opened;
  }
  EGLint major = 0, minor = 0;
  if (!eglInitialize(opened.display, &major, &minor)) {
    opened.failure = egl_failure("eglInitialize");
    opened.display = EGL_NO_DISPLAY;
    return opened;
  }
  auto fail = [&](const std::string& why) {
    close(opened);
    opened.failure = why;
    return opened;
  };
  if (!eglBindAPI(EGL_OPENGL_API))
    return fail(egl_failure("eglBindAPI(EGL_OPENGL_API)") + ": this EGL offers no desktop OpenGL");

  const char* extensions = eglQueryString(opened.display, EGL_EXTENSIONS);
  opened.surfaceless = has_extension(extensions, "EGL_KHR_surfaceless_context");
  // A pbuffer-capable config first (works everywhere); any config when the context is surfaceless.
  EGLint config_attributes[] = {EGL_SURFACE_TYPE,    EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                EGL_RED_SIZE,        8,               EGL_GREEN_SIZE,      8,
                                EGL_BLUE_SIZE,       8,               EGL_ALPHA_SIZE,      8,
                                EGL_NONE};
  EGLConfig config = nullptr;
  EGLint config_count = 0;
  bool pbuffer_config = eglChooseConfig(opened.display, config_attributes, &config, 1, &config_count) && config_count > 0;
  if (!pbuffer_config && opened.surfaceless) {
    config_attributes[1] = 0;  // no surface type needed
    if (!eglChooseConfig(opened.display, config_attributes, &config, 1, &config_count) || config_count == 0)
      return fail("no RGBA8 OpenGL config");
  } else if (!pbuffer_config) {
    return fail("no RGBA8 OpenGL pbuffer config, and no surfaceless contexts");
  }

  const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                       EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                       EGL_NONE};
  opened.context = eglCreateContext(opened.display, config, EGL_NO_CONTEXT, context_attributes);
  if (opened.context == EGL_NO_CONTEXT) return fail(egl_failure("creating an OpenGL 3.3 core context"));
  if (!opened.surfaceless) {
    // We draw into our own framebuffer object; the pbuffer only makes the context current.
    const EGLint pbuffer_attributes[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    opened.surface = eglCreatePbufferSurface(opened.display, config, pbuffer_attributes);
    if (opened.surface == EGL_NO_SURFACE) return fail(egl_failure("creating a pbuffer"));
  }
  if (!eglMakeCurrent(opened.display, opened.surface, opened.surface, opened.context))
    return fail(egl_failure("making the context current"));
  if (!gladLoadGL(load_gl_function)) return fail("loading the OpenGL functions through eglGetProcAddress failed");
  return opened;
}

std::vector<Candidate> candidates(int preferred_cuda_device) {
  std::vector<Candidate> list;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);  // null without client extensions
  const bool device_platform = has_extension(client, "EGL_EXT_platform_device") &&
                               (has_extension(client, "EGL_EXT_device_enumeration") ||
                                has_extension(client, "EGL_EXT_device_base"));
  if (device_platform) {
    auto query_devices = egl_function<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
    auto query_string = egl_function<PFNEGLQUERYDEVICESTRINGEXTPROC>("eglQueryDeviceStringEXT");
    auto query_attribute = egl_function<PFNEGLQUERYDEVICEATTRIBEXTPROC>("eglQueryDeviceAttribEXT");
    EGLint count = 0;
    if (query_devices && query_devices(0, nullptr, &count) && count > 0) {
      std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
      query_devices(count, devices.data(), &count);
      for (EGLint i = 0; i < count; ++i) {
        const char* extensions = query_string ? query_string(devices[i], EGL_EXTENSIONS) : nullptr;
        Candidate candidate;
        candidate.kind = Kind::Device;
        candidate.platform = EGL_PLATFORM_DEVICE_EXT;
        candidate.native = devices[i];
        candidate.description = "EGL device platform, device " + std::to_string(i) + " of " + std::to_string(count);
        candidate.rank = 3;
        if (has_extension(extensions, "EGL_NV_device_cuda")) {
          EGLAttrib cuda_device = -1;
          const bool known = query_attribute && query_attribute(devices[i], EGL_CUDA_DEVICE_NV, &cuda_device);
          candidate.rank = known && cuda_device == preferred_cuda_device ? 0 : 1;
          candidate.description += " (NVIDIA";
          if (known) candidate.description += ", CUDA device " + std::to_string(static_cast<long long>(cuda_device));
          candidate.description += ")";
        } else if (has_extension(extensions, "EGL_MESA_device_software")) {
          candidate.description += " (Mesa software)";
        } else if (has_extension(extensions, "EGL_EXT_device_drm") && query_string) {
          const char* file = query_string(devices[i], EGL_DRM_DEVICE_FILE_EXT);
          candidate.description += std::string(" (") + (file ? file : "DRM") + ")";
          candidate.rank = 2;
        }
        list.push_back(candidate);
      }
    }
  }
  std::stable_sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });
  if (has_extension(client, "EGL_MESA_platform_surfaceless"))
    list.push_back({Kind::Surfaceless, EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                    "EGL surfaceless platform (Mesa)", 4});
  list.push_back({Kind::Default, 0, nullptr, "EGL default display", 5});

  // GAUSSLAB_EGL_PLATFORM=device|surfaceless|default keeps one kind only: to test a fallback, or
  // to step around a platform that misbehaves on some machine.
  if (const char* only = std::getenv("GAUSSLAB_EGL_PLATFORM"); only && *only) {
    const std::string wanted = only;
    Kind kind;
    if (wanted == "device")
      kind = Kind::Device;
    else if (wanted == "surfaceless")
      kind = Kind::Surfaceless;
    else if (wanted == "default")
      kind = Kind::Default;
    else
      throw GlError("GAUSSLAB_EGL_PLATFORM='" + wanted + "' is not one of device, surfaceless, default");
    list.erase(std::remove_if(list.begin(), list.end(), [kind](const Candidate& c) { return c.kind != kind; }),
               list.end());
    if (list.empty())
      throw GlError("GAUSSLAB_EGL_PLATFORM=" + wanted + ": this EGL does not offer that platform");
  }
  return list;
}

}  // namespace

EglOffscreen::EglOffscreen(int width, int height, int preferred_cuda_device) : width_(width), height_(height) {
  if (width < 1 || height < 1 || width > 16384 || height > 16384)
    throw GlError("the offscreen view must be 1x1 to 16384x16384 pixels, not " + std::to_string(width) + "x" +
                  std::to_string(height));
  std::string failures;
  for (const Candidate& candidate : candidates(preferred_cuda_device)) {
    Opened opened = open_context(candidate);
    if (!opened.failure.empty()) {
      failures += "\n  " + candidate.description + ": " + opened.failure;
      continue;
    }
    display_ = opened.display;
    context_ = opened.context;
    surface_ = opened.surface;
    try {
      query_info(candidate.description + (opened.surfaceless ? ", surfaceless context" : ", pbuffer context"));
      create_framebuffer();
    } catch (const std::exception& error) {
      failures += "\n  " + candidate.description + ": " + error.what();
      Opened to_close{display_, context_, surface_, {}, false};
      close(to_close);
      display_ = context_ = surface_ = nullptr;
      continue;
    }
    return;
  }
  throw GlError("could not create an offscreen OpenGL 3.3 core context through EGL:" + failures +
                "\nInstall an EGL driver with desktop OpenGL (NVIDIA's driver, or Mesa: libegl-mesa0 libgl1-mesa-dri)");
}

EglOffscreen::~EglOffscreen() {
  if (!display_) return;
  if (framebuffer_) glDeleteFramebuffers(1, &framebuffer_);
  if (colour_texture_) glDeleteTextures(1, &colour_texture_);
  Opened to_close{display_, context_, surface_, {}, false};
  close(to_close);
  eglReleaseThread();
}

void EglOffscreen::create_framebuffer() {
  glGenTextures(1, &colour_texture_);
  glBindTexture(GL_TEXTURE_2D, colour_texture_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width_, height_, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, 0);
  glGenFramebuffers(1, &framebuffer_);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, colour_texture_, 0);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw GlError("the offscreen framebuffer is incomplete (glCheckFramebufferStatus " + std::to_string(status) + ")");
  gl_check("creating the offscreen framebuffer");
}

void EglOffscreen::bind_framebuffer() {
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glViewport(0, 0, width_, height_);
}

void EglOffscreen::present() { glFlush(); }

void EglOffscreen::resize(int width, int height) {
  if (width < 1 || height < 1) throw GlError("an offscreen view of " + std::to_string(width) + "x" + std::to_string(height));
  if (width == width_ && height == height_) return;
  glDeleteFramebuffers(1, &framebuffer_);
  glDeleteTextures(1, &colour_texture_);
  framebuffer_ = colour_texture_ = 0;
  width_ = width;
  height_ = height;
  create_framebuffer();
}

}  // namespace gausslab

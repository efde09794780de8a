// Folder, file-list and synthetic sources; the choice of source for the CLI's INPUT.
#include "gausslab/sequence/frame_source.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "gausslab/sequence/frame_io.hpp"

namespace gausslab {

namespace fs = std::filesystem;

namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

bool one_of(const std::string& ext, std::initializer_list<const char*> list) {
  return std::any_of(list.begin(), list.end(), [&](const char* e) { return ext == e; });
}

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

// Frames read one by one from image files.
class FileListSource final : public FrameSource {
 public:
  FileListSource(std::vector<std::string> paths, std::string description, std::vector<std::string> notes)
      : paths_(std::move(paths)), description_(std::move(description)), notes_(std::move(notes)) {}

  std::string description() const override { return description_; }
  int frame_count() const override { return static_cast<int>(paths_.size()); }
  std::vector<std::string> notes() const override { return notes_; }
  std::vector<std::string> files() const override { return paths_; }
  void rewind() override { next_ = 0; }

  std::optional<SourceFrame> next() override {
    if (next_ >= paths_.size()) return std::nullopt;
    SourceFrame frame;
    frame.index = static_cast<int>(next_);
    frame.name = fs::path(paths_[next_]).filename().string();
    try {
      frame.image = load_grey_frame(paths_[next_]);
    } catch (const std::exception& error) {
      frame.error = error.what();
    }
    ++next_;
    return frame;
  }

 private:
  std::vector<std::string> paths_;
  std::string description_;
  std::vector<std::string> notes_;
  std::size_t next_ = 0;
};

class SyntheticSource final : public FrameSource {
 public:
  explicit SyntheticSource(const SyntheticSpec& spec) : sky_(spec) {}
  std::string description() const override {
    const SyntheticSpec& s = sky_.spec();
    return "synthetic sky " + std::to_string(s.width) + "x" + std::to_string(s.height) + ", seed " +
           std::to_string(s.seed) + ": " + std::to_string(s.frames) + " frames";
  }
  int frame_count() const override { return sky_.spec().frames; }
  void rewind() override { next_ = 0; }
  std::optional<SourceFrame> next() override {
    if (next_ >= sky_.spec().frames) return std::nullopt;
    SourceFrame frame;
    frame.index = next_;
    frame.name = "frame " + std::to_string(next_);
    frame.image = sky_.frame(next_);
    ++next_;
    return frame;
  }

 private:
  SyntheticSequence sky_;
  int next_ = 0;
};

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      std::size_t is = i, js = j;  // compare values: strip leading zeros, then length, then digits
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.substr(is, ie - is).compare(b.substr(js, je - js));
      if (c != 0) return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal by value ("frame_02" and "frame_2"): any fixed order
}

bool is_frame_file_name(const std::string& path) {
  return one_of(lower_extension(path), {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm", ".ppm", ".pnm", ".gif",
                                        ".psd", ".hdr", ".pic", ".tif", ".tiff"});
}

bool is_video_file_name(const std::string& path) {
  return one_of(lower_extension(path), {".mp4", ".m4v", ".mov", ".mkv", ".webm", ".avi", ".mpg", ".mpeg", ".ts",
                                        ".mts", ".m2ts", ".flv", ".wmv", ".ogv", ".nut", ".y4m", ".3gp", ".mxf"});
}

std::unique_ptr<FrameSource> open_frame_folder(const std::string& folder) {
  std::error_code error;
  fs::directory_iterator it(folder, error);
  if (error) throw SequenceInputError("cannot read the folder " + in_quotes(folder) + ": " + error.message());
  std::vector<std::string> frames, ignored;
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // hidden files, editors' temporaries
    std::error_code e;
    if (!entry.is_regular_file(e)) continue;
    (is_frame_file_name(name) ? frames : ignored).push_back(name);
  }
  std::sort(frames.begin(), frames.end(), natural_less);
  std::sort(ignored.begin(), ignored.end(), natural_less);
  if (frames.empty())
    throw SequenceInputError("the folder " + in_quotes(folder) + " holds no frames (image files such as .png, .jpg, "
                             ".bmp, .tif)" +
                             (ignored.empty() ? std::string() : ", only " + std::to_string(ignored.size()) + " other files"));
  std::vector<std::string> notes;
  if (!ignored.empty()) {
    std::string list;
    for (std::size_t i = 0; i < ignored.size() && i < 5; ++i) list += (i ? ", " : "") + ignored[i];
    if (ignored.size() > 5) list += ", ...";
    notes.push_back("left out " + std::to_string(ignored.size()) + " file(s) that are not frames: " + list);
  }
  std::vector<std::string> paths;
  for (const std::string& name : frames) paths.push_back((fs::path(folder) / name).string());
  return std::make_unique<FileListSource>(std::move(paths),
                                          "folder " + in_quotes(folder) + ": " + std::to_string(frames.size()) +
                                              " frames, " + frames.front() + " ... " + frames.back(),
                                          std::move(notes));
}

std::unique_ptr<FrameSource> open_frame_files(const std::vector<std::string>& paths) {
  if (paths.empty()) throw SequenceInputError("no frames given");
  return std::make_unique<FileListSource>(paths, std::to_string(paths.size()) + " frame files", std::vector<std::string>{});
}

std::unique_ptr<FrameSource> open_synthetic(const SyntheticSpec& spec) { return std::make_unique<SyntheticSource>(spec); }

}  // namespace gausslab

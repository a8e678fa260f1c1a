// heatmap_pixels_test — the time heatmap as a reader sees it: `bench plot` on
// tests/fixtures/standings (every ratio made by hand: its README), the PNG
// decoded here with zlib alone, and each cell's colour read back: a ratio
// below 1 (faster than glibc) blue, above 1 (slower) red. figures_test checks
// the data file; this checks the picture drawn from it.
#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

using Rgb = std::array<int, 3>;

struct Image {
  int width = 0, height = 0;
  std::vector<Rgb> pixels;  // row by row from the top
  const Rgb& at(int x, int y) const { return pixels[std::size_t(y) * std::size_t(width) + std::size_t(x)]; }
};

std::uint32_t big_endian(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(s.at(at + i));
  return v;
}

// A PNG of 8-bit samples, not interlaced (what gnuplot's png terminals
// write): its chunks, the inflated IDAT stream, each scanline unfiltered.
Image read_png(const fs::path& file) {
  const std::string png = testing::slurp(file);
  if (png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) throw std::runtime_error(file.string() + " is not a PNG");
  Image image;
  int depth = 0, type = 0, interlace = 0;
  std::string compressed;
  std::vector<Rgb> palette;
  for (std::size_t at = 8; at + 8 <= png.size();) {
    const std::uint32_t length = big_endian(png, at);
    const std::string kind = png.substr(at + 4, 4), data = png.substr(at + 8, length);
    if (kind == "IHDR") {
      image.width = int(big_endian(data, 0));
      image.height = int(big_endian(data, 4));
      depth = static_cast<unsigned char>(data.at(8));
      type = static_cast<unsigned char>(data.at(9));
      interlace = static_cast<unsigned char>(data.at(12));
    } else if (kind == "PLTE") {
      for (std::size_t i = 0; i + 2 < data.size(); i += 3)
        palette.push_back({static_cast<unsigned char>(data[i]), static_cast<unsigned char>(data[i + 1]),
                           static_cast<unsigned char>(data[i + 2])});
    } else if (kind == "IDAT") {
      compressed += data;
    }
    at += 12 + length;  // length, type, data, CRC
  }
  const int channels = type == 0 ? 1 : type == 2 ? 3 : type == 3 ? 1 : type == 4 ? 2 : type == 6 ? 4 : 0;
  if (depth != 8 || channels == 0 || interlace != 0)
    throw std::runtime_error(file.string() + ": bit depth " + std::to_string(depth) + ", colour type " +
                             std::to_string(type) + ", interlace " + std::to_string(interlace) + " is not read here");
  const std::size_t stride = std::size_t(image.width) * std::size_t(channels);
  std::vector<unsigned char> raw(std::size_t(image.height) * (stride + 1));
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()) != Z_OK ||
      size != raw.size())
    throw std::runtime_error(file.string() + ": its image data does not inflate to its size");
  std::vector<unsigned char> row(stride), previous(stride, 0);
  for (int y = 0; y < image.height; ++y) {
    const unsigned char* line = &raw[std::size_t(y) * (stride + 1)];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= std::size_t(channels) ? row[i - channels] : 0, b = previous[i],
                c = i >= std::size_t(channels) ? previous[i - channels] : 0;
      const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      const int predicted = line[0] == 1   ? a
                            : line[0] == 2 ? b
                            : line[0] == 3 ? (a + b) / 2
                            : line[0] == 4 ? (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
                                           : 0;
      row[i] = static_cast<unsigned char>(line[1 + i] + predicted);
    }
    for (int x = 0; x < image.width; ++x) {
      const unsigned char* s = &row[std::size_t(x) * std::size_t(channels)];
      image.pixels.push_back(type == 3 ? palette.at(s[0]) : channels < 3 ? Rgb{s[0], s[0], s[0]} : Rgb{s[0], s[1], s[2]});
    }
    previous = row;
  }
  return image;
}

// Blue-ish and red-ish by how far blue and red stand apart: the palette's
// colours at a ratio of 1/1.4 or 1.4 differ by 40 already, white and the
// labels' grey by nothing.
enum class Hue { blue, red, none };
Hue hue(const Rgb& p) { return p[2] - p[0] >= 40 ? Hue::blue : p[0] - p[2] >= 40 ? Hue::red : Hue::none; }

struct Box {
  int left = 0, top = 0, right = -1, bottom = -1;  // inclusive
  int width() const { return right - left + 1; }
  int height() const { return bottom - top + 1; }
};

// The grid of cells: the box around every region of one flat colour, blue-ish
// or red-ish, at least 20 by 10 pixels. The colour bar beside it is a
// gradient, a thin band per colour; the labels' pixels are holes in their cell.
Box grid_of(const Image& image, std::string& seen) {
  std::vector<char> visited(image.pixels.size(), 0);
  Box grid{image.width, image.height, -1, -1};
  std::ostringstream regions;
  for (int y0 = 0; y0 < image.height; ++y0)
    for (int x0 = 0; x0 < image.width; ++x0) {
      const std::size_t start = std::size_t(y0) * std::size_t(image.width) + std::size_t(x0);
      if (visited[start] || hue(image.pixels[start]) == Hue::none) continue;
      const Rgb colour = image.pixels[start];
      Box box{x0, y0, x0, y0};
      std::vector<std::size_t> stack = {start};
      visited[start] = 1;
      while (!stack.empty()) {
        const std::size_t i = stack.back();
        stack.pop_back();
        const int x = int(i % std::size_t(image.width)), y = int(i / std::size_t(image.width));
        box = {std::min(box.left, x), std::min(box.top, y), std::max(box.right, x), std::max(box.bottom, y)};
        for (const auto& [dx, dy] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= image.width || ny >= image.height) continue;
          const std::size_t n = std::size_t(ny) * std::size_t(image.width) + std::size_t(nx);
          if (visited[n] || image.pixels[n] != colour) continue;
          visited[n] = 1;
          stack.push_back(n);
        }
      }
      if (box.width() < 20 || box.height() < 10) continue;
      regions << "(" << box.left << "," << box.top << ")-(" << box.right << "," << box.bottom << ") ";
      grid = {std::min(grid.left, box.left), std::min(grid.top, box.top), std::max(grid.right, box.right),
              std::max(grid.bottom, box.bottom)};
    }
  seen = regions.str();
  return grid;
}

// Each cell of time-t1.png blue where its ratio (rows top-down in the
// folder's order, columns in its allocator order) is below 1, red above.
void expect_hues(const fs::path& dir, const double (&ratio)[3][3]) {
  const std::vector<std::string> rows = {"vacation-low", "intruder", "genome"}, columns = {"jemalloc", "tcmalloc", "mimalloc"};
  const Image image = read_png(dir / "figures" / "time-t1.png");
  std::string regions;
  const Box grid = grid_of(image, regions);
  ASSERT_GT(grid.width(), image.width / 4) << "no grid of coloured cells found; flat regions: " << regions;
  ASSERT_GT(grid.height(), 3 * 10) << "no grid of coloured cells found; flat regions: " << regions;
  for (int row = 0; row < 3; ++row)
    for (int column = 0; column < 3; ++column) {
      // The middle of the cell, its label included (a few dark pixels).
      const int left = grid.left + grid.width() * (5 * column + 1) / 15, right = grid.left + grid.width() * (5 * column + 4) / 15,
                top = grid.top + grid.height() * (5 * row + 1) / 15, bottom = grid.top + grid.height() * (5 * row + 4) / 15;
      int blue = 0, red = 0, all = 0;
      for (int y = top; y <= bottom; ++y)
        for (int x = left; x <= right; ++x, ++all) {
          blue += hue(image.at(x, y)) == Hue::blue;
          red += hue(image.at(x, y)) == Hue::red;
        }
      const bool faster = ratio[row][column] < 1;
      const int expected = faster ? blue : red, other = faster ? red : blue;
      EXPECT_TRUE(expected > all / 2 && other == 0)
          << rows[row] << " under " << columns[column] << " (" << std::setprecision(3) << ratio[row][column]
          << " of glibc's time) should be "
          << (faster ? "blue" : "red") << ": of its middle's " << all << " pixels " << blue << " are blue-ish, " << red
          << " red-ish (grid (" << grid.left << "," << grid.top << ")-(" << grid.right << "," << grid.bottom << ") in "
          << image.width << "x" << image.height << ")";
    }
}

// The fixture plotted into a scratch copy, its runs.csv first passed through `edit` (line by line).
fs::path plotted(const testing::ScratchDir& scratch, const std::function<std::string(const std::string&)>& edit = {}) {
  const fs::path dir = scratch / "results";
  fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  if (edit) {
    std::istringstream in(testing::slurp(dir / "runs.csv"));
    std::string text;
    for (std::string line; std::getline(in, line);) text += edit(line) + "\n";
    std::ofstream(dir / "runs.csv", std::ios::trunc) << text;
  }
  const testing::CommandResult r = testing::run_command({BENCH_BINARY, "plot", dir.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return dir;
}

// At 1 thread the fixture's ratios to glibc (its README): every cell far
// enough from 1 (0.65 and 1.5 the nearest) to have a clear hue: four blue, five red.
TEST(TimeHeatmapAsDrawn, FasterCellsAreBlueAndSlowerOnesRed) {
  SKIP_UNLESS_INSTALLED(std::system("command -v gnuplot >/dev/null 2>&1") == 0, "gnuplot (gnuplot-nox)");
  const testing::ScratchDir scratch("heatmap-pixels");
  const double ratio[3][3] = {{0.5, 0.65, 0.35}, {2.0, 1.5, 3.0}, {2.5, 0.4, 2.5}};
  expect_hues(plotted(scratch), ratio);
}

// Beyond the colour bar's ends (1/4 and 4) a cell takes the nearer end's
// colour: mimalloc at 6 times glibc's time at intruder (its times doubled)
// is the deepest red, not blue, and tcmalloc at 0.1 at genome blue.
TEST(TimeHeatmapAsDrawn, RatiosBeyondTheBarsEndsKeepTheirSide) {
  SKIP_UNLESS_INSTALLED(std::system("command -v gnuplot >/dev/null 2>&1") == 0, "gnuplot (gnuplot-nox)");
  const testing::ScratchDir scratch("heatmap-pixels-beyond");
  const fs::path dir = plotted(scratch, [](const std::string& line) {
    const bool intruder_mimalloc = line.find(",intruder,") != std::string::npos && line.find(",mimalloc,") != std::string::npos;
    const bool genome_tcmalloc = line.find(",genome,") != std::string::npos && line.find(",tcmalloc,") != std::string::npos;
    if ((!intruder_mimalloc && !genome_tcmalloc) || line.find(",timed,ok,") == std::string::npos) return line;
    const std::size_t at = line.find(",timed,ok,") + 10, end = line.find(',', at);
    const double elapsed = std::stod(line.substr(at, end - at)) * (intruder_mimalloc ? 2 : 0.25);
    return line.substr(0, at) + std::to_string(static_cast<long long>(elapsed)) + line.substr(end);
  });
  const double ratio[3][3] = {{0.5, 0.65, 0.35}, {2.0, 1.5, 6.0}, {2.5, 0.1, 2.5}};
  expect_hues(dir, ratio);
  EXPECT_NE(testing::slurp(dir / "figures" / "data" / "time-t1.dat").find("\"6.00*\""), std::string::npos)
      << "the label keeps the ratio itself";
}

// The colour bar's key reads as the cells do: 1/4 at its blue end (the
// bottom: the palette runs from -2 to 2 upwards), 4 at its red end.
TEST(TimeHeatmapAsDrawn, TheColourBarsKeyRunsFromAQuarterAtTheBlueEnd) {
  SKIP_UNLESS_INSTALLED(std::system("command -v gnuplot >/dev/null 2>&1") == 0, "gnuplot (gnuplot-nox)");
  const testing::ScratchDir scratch("heatmap-key");
  const std::string svg = testing::slurp(plotted(scratch) / "figures" / "time-t1.svg");
  // The height on the page of the label `text`: the y of the translate() just before it.
  auto y_of = [&](const std::string& text) {
    const std::size_t label = svg.find("<text>" + text + "</text>");
    if (label == std::string::npos) return -1.0;
    const std::size_t translate = svg.rfind("translate(", label);
    return std::stod(svg.substr(svg.find(',', translate) + 1));
  };
  const std::vector<std::string> key = {"1/4", "1/2", "1", "2", "4"};
  for (std::size_t i = 0; i < key.size(); ++i) {
    ASSERT_GT(y_of(key[i]), 0) << "no label " << key[i] << " in the SVG";
    if (i > 0) EXPECT_LT(y_of(key[i]), y_of(key[i - 1])) << key[i] << " above " << key[i - 1];
  }
}

}  // namespace
}  // namespace allocstamp

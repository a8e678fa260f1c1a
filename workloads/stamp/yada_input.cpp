// yada_input.cpp — yada's input mesh, made from a seed: STAMP ships Triangle's
// triangulations of uniformly random points (633.2, ttimeu10000.2, ...; the
// largest is absent from its repository), so we make the same kind of mesh —
// the Delaunay triangulation (Bowyer–Watson) of uniformly random points in the
// unit square, with vertices along its sides (the boundary segments) — and
// write it in Triangle's .node/.ele/.poly format, which STAMP's yada reads as
// well as ours. Not measured: everything
// here runs inside a memprof ignore scope.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <memprof/memprof.h>

#include "random.h"
#include "yada.h"

namespace allocstamp::stamp {
namespace {

struct Point {
  double x, y;
};

// Counter-clockwise: v[0], v[1], v[2]; nb[i] is the triangle across the edge
// opposite v[i] (-1 on the square's sides).
struct Triangle {
  int v[3];
  int nb[3];
  bool dead;
};

double orient(const Point& a, const Point& b, const Point& c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

// > 0 when d is strictly inside the circle through a, b, c (counter-clockwise).
double in_circle(const Point& a, const Point& b, const Point& c, const Point& d) {
  double adx = a.x - d.x, ady = a.y - d.y, bdx = b.x - d.x, bdy = b.y - d.y, cdx = c.x - d.x, cdy = c.y - d.y;
  double ad = adx * adx + ady * ady, bd = bdx * bdx + bdy * bdy, cd = cdx * cdx + cdy * cdy;
  return adx * (bdy * cd - bd * cdy) - ady * (bdx * cd - bd * cdx) + ad * (bdx * cdy - bdy * cdx);
}

class Delaunay {
 public:
  explicit Delaunay(std::vector<Point>& points) : p_(points) {
    // The square's corners are points 0..3: two triangles to start from; every
    // other point lies strictly inside, so the hull never changes.
    tris_.push_back({{0, 1, 2}, {-1, 1, -1}, false});
    tris_.push_back({{0, 2, 3}, {-1, -1, 0}, false});
  }

  void insert(int point) {
    const Point& q = p_[size_t(point)];
    int start = locate(q);
    // The cavity: the triangles whose circumcircle holds q, grown from the one
    // that contains it (connected and star-shaped around q).
    cavity_.clear();
    border_.clear();
    cavity_.push_back(start);
    tris_[size_t(start)].dead = true;
    for (size_t i = 0; i < cavity_.size(); ++i) {
      Triangle t = tris_[size_t(cavity_[i])];
      for (int e = 0; e < 3; ++e) {
        int n = t.nb[e];
        if (n >= 0 && !tris_[size_t(n)].dead && inside(n, q)) {
          tris_[size_t(n)].dead = true;
          cavity_.push_back(n);
        } else if (n < 0 || !tris_[size_t(n)].dead) {
          border_.push_back({t.v[(e + 1) % 3], t.v[(e + 2) % 3], n});
        }
      }
    }
    free_.insert(free_.end(), cavity_.begin(), cavity_.end());
    // A fan of new triangles (point, a, b) over the border edges (a, b); a
    // point on a side splits that side's edge (no flat triangle on it).
    made_.clear();
    for (const Border& b : border_) {
      if (b.outside < 0 && orient(p_[size_t(b.a)], p_[size_t(b.b)], q) == 0) continue;
      int id = take();
      tris_[size_t(id)] = {{point, b.a, b.b}, {b.outside, -1, -1}, false};
      if (b.outside >= 0) {
        Triangle& o = tris_[size_t(b.outside)];
        for (int e = 0; e < 3; ++e)
          if (o.v[e] != b.a && o.v[e] != b.b) o.nb[e] = id;
      }
      made_.push_back(id);
    }
    // Around the point: triangle (p, a, b)'s edge (b, p), opposite a, is the
    // edge (p, b, c)'s edge (p, b), opposite c.
    for (int id : made_) {
      Triangle& t = tris_[size_t(id)];
      for (int other : made_) {
        Triangle& u = tris_[size_t(other)];
        if (u.v[1] == t.v[2]) t.nb[1] = other, u.nb[2] = id;
      }
    }
    last_ = made_.empty() ? 0 : made_[0];
  }

  const std::vector<Triangle>& triangles() const { return tris_; }

 private:
  struct Border {
    int a, b, outside;
  };

  bool inside(int tri, const Point& q) const {
    const Triangle& t = tris_[size_t(tri)];
    return in_circle(p_[size_t(t.v[0])], p_[size_t(t.v[1])], p_[size_t(t.v[2])], q) > 0;
  }

  // A visibility walk from the last triangle made (points come in spatial order).
  int locate(const Point& q) {
    int at = last_;
    for (long steps = 0;; ++steps) {
      const Triangle& t = tris_[size_t(at)];
      int next = -1;
      for (int k = 0; k < 3; ++k) {
        int e = int((steps + k) % 3);  // rotate the first edge tried, so the walk cannot cycle
        if (orient(p_[size_t(t.v[(e + 1) % 3])], p_[size_t(t.v[(e + 2) % 3])], q) < 0) {
          next = t.nb[e];
          break;
        }
      }
      if (next < 0) return at;
      at = next;
    }
  }

  int take() {
    if (!free_.empty()) {
      int id = free_.back();
      free_.pop_back();
      return id;
    }
    tris_.push_back({});
    return int(tris_.size() - 1);
  }

  std::vector<Point>& p_;
  std::vector<Triangle> tris_;
  std::vector<int> free_, cavity_, made_;
  std::vector<Border> border_;
  int last_ = 0;
};

// Strips of cells, alternately left to right and right to left: consecutive
// points are near each other, so each walk is short.
std::vector<int> spatial_order(const std::vector<Point>& p, size_t from) {
  size_t n = p.size();
  long strips = std::max(1L, long(std::sqrt(double(n) / 4.0)));
  std::vector<std::pair<long, double>> keys(n);
  for (size_t i = 0; i < n; ++i) {
    long s = std::min(strips - 1, long(p[i].y * double(strips)));
    keys[i] = {s, (s % 2 == 0) ? p[i].x : -p[i].x};
  }
  std::vector<int> order;
  for (size_t i = from; i < n; ++i) order.push_back(int(i));
  std::sort(order.begin(), order.end(), [&](int a, int b) { return keys[size_t(a)] < keys[size_t(b)]; });
  return order;
}

bool write_files(const std::vector<Point>& p, const std::vector<Triangle>& tris, const char* prefix) {
  char name[1024];
  std::snprintf(name, sizeof name, "%s.node", prefix);
  FILE* f = std::fopen(name, "w");
  if (!f) return false;
  std::fprintf(f, "%zu 2 0 0\n", p.size());
  for (size_t i = 0; i < p.size(); ++i) std::fprintf(f, "%zu %.17g %.17g\n", i + 1, p[i].x, p[i].y);
  bool ok = std::fclose(f) == 0;
  std::snprintf(name, sizeof name, "%s.ele", prefix);
  f = std::fopen(name, "w");
  if (!f) return false;
  long live = 0;
  for (const Triangle& t : tris) live += t.dead ? 0 : 1;
  std::fprintf(f, "%ld 3 0\n", live);
  long id = 0;
  for (const Triangle& t : tris)
    if (!t.dead) std::fprintf(f, "%ld %d %d %d\n", ++id, t.v[0] + 1, t.v[1] + 1, t.v[2] + 1);
  ok = std::fclose(f) == 0 && ok;
  // The boundary segments: the edges on the square's sides (vertices are
  // numbered from 1, as Triangle's).
  std::snprintf(name, sizeof name, "%s.poly", prefix);
  f = std::fopen(name, "w");
  if (!f) return false;
  long segments = 0;
  for (const Triangle& t : tris)
    for (int e = 0; e < 3; ++e) segments += !t.dead && t.nb[e] < 0;
  std::fprintf(f, "0 2 0 1\n%ld 1\n", segments);
  id = 0;
  for (const Triangle& t : tris)
    for (int e = 0; e < 3; ++e)
      if (!t.dead && t.nb[e] < 0) std::fprintf(f, "%ld %d %d 1\n", ++id, t.v[(e + 1) % 3] + 1, t.v[(e + 2) % 3] + 1);
  std::fprintf(f, "0\n");
  return std::fclose(f) == 0 && ok;
}

}  // namespace

bool write_yada_mesh(long points, uint64_t seed, const char* prefix) {
  memprof::ignore_begin();
  bool ok;
  {
    std::vector<Point> p = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    Random random(seed);
    // Strictly inside the square: (k + 0.5) / 2^30 for k in [0, 2^30).
    auto coordinate = [&random] { return (double(random.below(1ull << 30)) + 0.5) / double(1ull << 30); };
    // Vertices along the sides too, about half as far apart as the points
    // inside: a side that is one long edge leaves triangles along it with
    // angles too small for a double's acos (STAMP asserts every angle > 0).
    const long per_side = std::max(1L, long(std::sqrt(double(points)) / 2));
    for (long i = 1; i < per_side && long(p.size()) + 4 <= points; ++i) {
      double t = double(i) / double(per_side);
      p.push_back({t, 0});
      p.push_back({1, t});
      p.push_back({1 - t, 1});
      p.push_back({0, 1 - t});
    }
    Delaunay mesh(p);
    for (size_t i = 4; i < p.size(); ++i) mesh.insert(int(i));  // the sides' vertices first
    const size_t inside = p.size();
    for (long i = long(inside); i < points; ++i) {
      double x = coordinate();
      p.push_back({x, coordinate()});
    }
    for (int i : spatial_order(p, inside)) mesh.insert(i);
    // Every triangle counter-clockwise with room inside: a rounding error in
    // the predicates would show here first (STAMP asserts on such triangles).
    for (const Triangle& t : mesh.triangles())
      if (!t.dead && !(orient(p[size_t(t.v[0])], p[size_t(t.v[1])], p[size_t(t.v[2])]) > 0)) {
        std::fprintf(stderr, "stamp yada: the generated mesh has a flat or inverted triangle\n");
        std::abort();
      }
    ok = write_files(p, mesh.triangles(), prefix);
  }
  memprof::ignore_end();
  return ok;
}

}  // namespace allocstamp::stamp

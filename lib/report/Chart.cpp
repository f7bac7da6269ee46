//===- Chart.cpp - Roofline chart in SVG and the HTML report --------------===//
//
// A self-contained SVG (no scripts, no external fonts or styles): log-log
// axes, the machine's bandwidth roofs per link and its compute ceilings,
// each labelled, and every modelled loop as one point per memory level at
// (that level's arithmetic intensity, the Roofline bound with data there).
// The HTML report embeds the chart beside the per-loop tables.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Report.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace perfmodel;

namespace {

std::string escapeXml(const std::string &S) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '&': Out += "&amp;"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '"': Out += "&quot;"; break;
    case '\'': Out += "&apos;"; break;
    default:
      // Control characters are not allowed in XML 1.0.
      if (static_cast<unsigned char>(C) >= 0x20 || C == '\n' || C == '\t')
        Out += C;
    }
  }
  return Out;
}

std::string fmt(double V) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.1f", V);
  return S;
}

/// One diagonal roof: a link's bandwidth for the whole chart.
struct Roof {
  std::string Name;
  double GBs = 0;
};

/// Level colours, L1 outwards (colour-blind safe, Okabe-Ito).
const char *levelColour(size_t I) {
  static const char *C[] = {"#0072B2", "#009E73", "#E69F00", "#D55E00", "#CC79A7", "#56B4E9"};
  return C[std::min<size_t>(I, 5)];
}

/// The machine's bandwidth roofs for CORES cores: L1 load port bandwidth,
/// each cache link, and memory (per socket used).
std::vector<Roof> machineRoofs(const MachineModel &M, unsigned Cores) {
  std::vector<Roof> R;
  if (M.Caches.empty())
    return R;
  R.push_back({M.Caches[0].Name + "-reg (loads)", M.Core.LoadBytesPerCycle * M.ClockGHz * Cores});
  for (size_t I = 1; I < M.Caches.size(); ++I)
    if (M.Caches[I - 1].BytesPerCycleFromNext)
      R.push_back({M.Caches[I].Name + "-" + M.Caches[I - 1].Name,
                   *M.Caches[I - 1].BytesPerCycleFromNext * M.ClockGHz * Cores});
  R.push_back({"MEM-" + M.Caches.back().Name, M.Memory.gbsFor(Cores, M.socketsFor(Cores))});
  // Links of equal bandwidth are one line on the chart.
  std::vector<Roof> Merged;
  for (const Roof &X : R) {
    if (!Merged.empty() && std::fabs(Merged.back().GBs - X.GBs) <= 0.005 * X.GBs)
      Merged.back().Name += ", " + X.Name;
    else
      Merged.push_back(X);
  }
  return Merged;
}

struct Axes {
  double X0, X1, Y0, Y1;          ///< data range (log scale)
  double Left = 70, Top = 40, W = 640, H = 440;
  double x(double V) const {
    return Left + (std::log10(V) - std::log10(X0)) / (std::log10(X1) - std::log10(X0)) * W;
  }
  double y(double V) const {
    return Top + H - (std::log10(V) - std::log10(Y0)) / (std::log10(Y1) - std::log10(Y0)) * H;
  }
};

double powerBelow(double V, double Base) { return std::pow(Base, std::floor(std::log(V) / std::log(Base))); }
double powerAbove(double V, double Base) { return std::pow(Base, std::ceil(std::log(V) / std::log(Base))); }

} // namespace

void perfmodel::printRooflineSVG(llvm::raw_ostream &OS, const AnalysisReport &R) {
  const MachineModel &M = *R.Machine;
  // The machine's roofs come from the first modelled loop's precision and
  // core count; loops of the other precision still plot their own points.
  const RooflineResult *First = nullptr;
  for (const LoopReport &L : R.Loops)
    if (L.Roofline && L.Roofline->FlopsPerIt > 0) {
      First = &*L.Roofline;
      break;
    }
  unsigned Cores = First ? First->Cores : R.Models.Cores;
  double Peak = First ? First->PeakGFlops
                      : M.Core.PeakFlopsPerCycleDouble * M.ClockGHz * std::max(1u, Cores);
  std::vector<ComputeCeiling> Ceilings;
  if (First)
    for (const ComputeCeiling &C : First->Ceilings)
      if (C.Name == "peak" || C.Name == "no FMA" || C.Name == "no SIMD")
        Ceilings.push_back(C);
  if (Ceilings.empty())
    Ceilings.push_back({"peak", Peak});
  std::vector<Roof> Roofs = machineRoofs(M, std::max(1u, Cores));

  struct Point {
    double X, Y;
    std::string Link;
    std::string Label, Title;
  };
  std::vector<Point> Points;
  unsigned Id = 0;
  for (const LoopReport &L : R.Loops) {
    ++Id;
    if (!L.Roofline || L.Roofline->FlopsPerIt <= 0)
      continue;
    size_t FirstOfLoop = Points.size();
    for (size_t I = 0; I < L.Roofline->Levels.size(); ++I) {
      const RooflineLink &K = L.Roofline->Levels[I];
      if (!std::isfinite(K.Intensity) || K.Intensity <= 0 || K.BoundGFlops <= 0)
        continue;
      // Levels of one loop at the same spot share one point and label.
      bool Joined = false;
      for (size_t J = FirstOfLoop; J < Points.size() && !Joined; ++J)
        if (std::fabs(Points[J].X - K.Intensity) <= 0.01 * K.Intensity &&
            std::fabs(Points[J].Y - K.BoundGFlops) <= 0.01 * K.BoundGFlops) {
          Points[J].Label += "," + K.Level;
          Points[J].Title += "; same with data in " + K.Level;
          Joined = true;
        }
      if (Joined)
        continue;
      Points.push_back({K.Intensity, K.BoundGFlops, K.Link, "[" + std::to_string(Id) + "] " + K.Level,
                        "[" + std::to_string(Id) + "] " + L.Loop->Function + " (" +
                            L.Loop->Loc.str() + "), data in " + K.Level + ": " +
                            formatNumber(K.BoundGFlops) + " GFLOP/s at " +
                            formatNumber(K.Intensity) + " flop/B, bound by " + K.Binding});
    }
  }

  // Axis ranges: every point, the ridge of each roof, one decade of room.
  double XMin = 1.0 / 16, XMax = 16, YMin = std::numeric_limits<double>::infinity();
  for (const Roof &Rf : Roofs)
    if (Rf.GBs > 0) {
      XMax = std::max(XMax, Peak / Rf.GBs * 4);
      XMin = std::min(XMin, Peak / Rf.GBs / 64);
    }
  for (const Point &P : Points) {
    XMin = std::min(XMin, P.X / 2);
    XMax = std::max(XMax, P.X * 2);
    YMin = std::min(YMin, P.Y / 2);
  }
  for (const ComputeCeiling &C : Ceilings)
    YMin = std::min(YMin, C.GFlops / 2);
  if (!std::isfinite(YMin) || YMin <= 0)
    YMin = Peak / 1000;
  XMin = std::max(XMin, 1.0 / 1024);
  XMax = std::min(XMax, 1024.0);
  Axes A{powerBelow(XMin, 2), powerAbove(XMax, 2), powerBelow(YMin, 10),
         powerAbove(Peak * 1.5, 10)};
  double Width = A.Left + A.W + 220, Height = A.Top + A.H + 60;

  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  OS << "<!-- generated by perfmodel analyze -->\n";
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(Width) << "\" height=\""
     << fmt(Height) << "\" viewBox=\"0 0 " << fmt(Width) << " " << fmt(Height)
     << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  OS << "<title>" << escapeXml("Roofline: " + M.Name) << "</title>\n";
  OS << "<rect x=\"0\" y=\"0\" width=\"" << fmt(Width) << "\" height=\"" << fmt(Height)
     << "\" fill=\"white\"/>\n";
  OS << "<text x=\"" << fmt(A.Left) << "\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
     << escapeXml("Roofline, " + M.Name + (Cores > 1 ? ", " + std::to_string(Cores) + " cores"
                                                     : ", one core") +
                  (First ? ", " + First->Precision : ""))
     << "</text>\n";
  // Clip everything drawn in data space to the plot area.
  OS << "<defs><clipPath id=\"plot\"><rect x=\"" << fmt(A.Left) << "\" y=\"" << fmt(A.Top)
     << "\" width=\"" << fmt(A.W) << "\" height=\"" << fmt(A.H) << "\"/></clipPath></defs>\n";

  // Grid and ticks: powers of two on x, decades on y.
  OS << "<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (double X = A.X0; X <= A.X1 * 1.0001; X *= 2)
    OS << "<line x1=\"" << fmt(A.x(X)) << "\" y1=\"" << fmt(A.Top) << "\" x2=\"" << fmt(A.x(X))
       << "\" y2=\"" << fmt(A.Top + A.H) << "\"/>\n";
  for (double Y = A.Y0; Y <= A.Y1 * 1.0001; Y *= 10)
    OS << "<line x1=\"" << fmt(A.Left) << "\" y1=\"" << fmt(A.y(Y)) << "\" x2=\"" << fmt(A.Left + A.W)
       << "\" y2=\"" << fmt(A.y(Y)) << "\"/>\n";
  OS << "</g>\n<g font-size=\"11\" fill=\"#333\">\n";
  for (double X = A.X0; X <= A.X1 * 1.0001; X *= 4) {
    std::string L = X >= 1 ? formatNumber(X) : "1/" + formatNumber(1 / X);
    OS << "<text x=\"" << fmt(A.x(X)) << "\" y=\"" << fmt(A.Top + A.H + 16)
       << "\" text-anchor=\"middle\">" << L << "</text>\n";
  }
  for (double Y = A.Y0; Y <= A.Y1 * 1.0001; Y *= 10)
    OS << "<text x=\"" << fmt(A.Left - 6) << "\" y=\"" << fmt(A.y(Y) + 4)
       << "\" text-anchor=\"end\">" << formatNumber(Y) << "</text>\n";
  OS << "</g>\n";
  OS << "<rect x=\"" << fmt(A.Left) << "\" y=\"" << fmt(A.Top) << "\" width=\"" << fmt(A.W) << "\" height=\""
     << fmt(A.H) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  OS << "<text x=\"" << fmt(A.Left + A.W / 2) << "\" y=\"" << fmt(A.Top + A.H + 36)
     << "\" text-anchor=\"middle\">arithmetic intensity (flop/byte over the link)</text>\n";
  OS << "<text transform=\"translate(18," << fmt(A.Top + A.H / 2)
     << ") rotate(-90)\" text-anchor=\"middle\">attainable GFLOP/s</text>\n";

  // Roofs: each bandwidth diagonal up to the peak, labelled along it.
  OS << "<g clip-path=\"url(#plot)\">\n";
  for (size_t I = 0; I < Roofs.size(); ++I) {
    const Roof &Rf = Roofs[I];
    if (Rf.GBs <= 0)
      continue;
    double Ridge = Peak / Rf.GBs;
    double XA = A.X0, XB = std::min(Ridge, A.X1);
    OS << "<line x1=\"" << fmt(A.x(XA)) << "\" y1=\"" << fmt(A.y(XA * Rf.GBs)) << "\" x2=\""
       << fmt(A.x(XB)) << "\" y2=\"" << fmt(A.y(XB * Rf.GBs)) << "\" stroke=\""
       << levelColour(I) << "\" stroke-width=\"2\" class=\"roof\"/>\n";
  }
  for (size_t I = 0; I < Ceilings.size(); ++I) {
    const ComputeCeiling &C = Ceilings[I];
    double Ridge = Roofs.empty() || Roofs[0].GBs <= 0 ? A.X0 : C.GFlops / Roofs[0].GBs;
    OS << "<line x1=\"" << fmt(A.x(std::max(Ridge, A.X0))) << "\" y1=\"" << fmt(A.y(C.GFlops))
       << "\" x2=\"" << fmt(A.Left + A.W) << "\" y2=\"" << fmt(A.y(C.GFlops))
       << "\" stroke=\"#222\" stroke-width=\"" << (I == 0 ? "2.5" : "1.2") << "\""
       << (I == 0 ? "" : " stroke-dasharray=\"6,4\"") << "/>\n";
  }
  OS << "</g>\n";
  // Labels of the roofs: ceilings at the right end, links at the left edge.
  OS << "<g font-size=\"11\">\n";
  for (const ComputeCeiling &C : Ceilings)
    if (C.GFlops >= A.Y0 && C.GFlops <= A.Y1)
      OS << "<text x=\"" << fmt(A.Left + A.W - 4) << "\" y=\"" << fmt(A.y(C.GFlops) - 4)
         << "\" text-anchor=\"end\">" << escapeXml(C.Name + " " + formatNumber(C.GFlops))
         << " GFLOP/s</text>\n";
  // Link labels run along their diagonal, each at its own height so that
  // neighbouring roofs do not write over each other.
  for (size_t I = 0; I < Roofs.size(); ++I) {
    const Roof &Rf = Roofs[I];
    if (Rf.GBs <= 0)
      continue;
    double Y = Peak / std::pow(2.0, 1.5 + 1.5 * double(I));
    double X = Y / Rf.GBs;
    if (X < A.X0 || Y < A.Y0)
      continue; // off the plot; the legend names it
    double Angle = std::atan2(A.y(X * 2 * Rf.GBs) - A.y(X * Rf.GBs), A.x(X * 2) - A.x(X)) *
                   180 / M_PI;
    OS << "<text transform=\"translate(" << fmt(A.x(X)) << "," << fmt(A.y(Y) - 5)
       << ") rotate(" << fmt(Angle) << ")\" text-anchor=\"end\" fill=\"" << levelColour(I)
       << "\">" << escapeXml(Rf.Name + " " + formatNumber(Rf.GBs)) << " GB/s</text>\n";
  }
  OS << "</g>\n";

  // Loop points: one per level, coloured like the roof of the link that
  // brings data from that level; labels take the first free spot around.
  auto RoofOf = [&](const std::string &Link) -> size_t {
    for (size_t I = 0; I < Roofs.size(); ++I)
      if (Roofs[I].Name.find(Link) != std::string::npos)
        return I;
    return Roofs.size();
  };
  struct Box {
    double X0, Y0, X1, Y1;
  };
  std::vector<Box> Placed;
  OS << "<g clip-path=\"url(#plot)\" font-size=\"10\">\n";
  for (const Point &P : Points) {
    double PX = A.x(P.X), PY = A.y(P.Y), W = 6.0 * P.Label.size(), H = 11;
    std::pair<double, double> Spots[] = {{PX + 6, PY - 5}, {PX + 6, PY + 13},
                                         {PX - 6 - W, PY - 5}, {PX - 6 - W, PY + 13}};
    std::pair<double, double> At = Spots[0];
    for (auto S : Spots) {
      Box B{S.first, S.second - H, S.first + W, S.second};
      bool Free = std::none_of(Placed.begin(), Placed.end(), [&](const Box &O) {
        return B.X0 < O.X1 && O.X0 < B.X1 && B.Y0 < O.Y1 && O.Y0 < B.Y1;
      });
      if (Free) {
        At = S;
        break;
      }
    }
    Placed.push_back({At.first, At.second - H, At.first + W, At.second});
    size_t Colour = RoofOf(P.Link);
    OS << "<g><title>" << escapeXml(P.Title) << "</title><circle cx=\"" << fmt(PX)
       << "\" cy=\"" << fmt(PY) << "\" r=\"4.5\" fill=\""
       << (Colour < Roofs.size() ? levelColour(Colour) : "#888")
       << "\" stroke=\"#000\" stroke-width=\"0.8\"/>";
    OS << "<text x=\"" << fmt(At.first) << "\" y=\"" << fmt(At.second) << "\">"
       << escapeXml(P.Label) << "</text></g>\n";
  }
  OS << "</g>\n";

  // Legend: links with bandwidths, then the loops by number.
  double LX = A.Left + A.W + 16, LY = A.Top + 8;
  OS << "<g font-size=\"11\">\n<text x=\"" << fmt(LX) << "\" y=\"" << fmt(LY)
     << "\" font-weight=\"bold\">roofs (GB/s); a point has</text>\n";
  LY += 14;
  OS << "<text x=\"" << fmt(LX) << "\" y=\"" << fmt(LY)
     << "\" font-weight=\"bold\">the colour of its data's link</text>\n";
  for (size_t I = 0; I < Roofs.size(); ++I) {
    LY += 16;
    OS << "<line x1=\"" << fmt(LX) << "\" y1=\"" << fmt(LY - 4) << "\" x2=\"" << fmt(LX + 18) << "\" y2=\""
       << fmt(LY - 4) << "\" stroke=\"" << levelColour(I) << "\" stroke-width=\"2\"/>"
       << "<text x=\"" << fmt(LX + 24) << "\" y=\"" << fmt(LY) << "\">"
       << escapeXml(Roofs[I].Name + " " + formatNumber(Roofs[I].GBs)) << "</text>\n";
  }
  LY += 26;
  OS << "<text x=\"" << fmt(LX) << "\" y=\"" << fmt(LY) << "\" font-weight=\"bold\">loops</text>\n";
  Id = 0;
  for (const LoopReport &L : R.Loops) {
    ++Id;
    if (LY > Height - 20)
      break;
    LY += 15;
    std::string S = "[" + std::to_string(Id) + "] " + L.Loop->Function + ":" +
                    std::to_string(L.Loop->Loc.Line);
    if (!L.Roofline || L.Roofline->FlopsPerIt <= 0)
      S += L.Loop->Modelled ? " (no flops)" : " (not modelled)";
    OS << "<text x=\"" << fmt(LX) << "\" y=\"" << fmt(LY) << "\">" << escapeXml(S) << "</text>\n";
  }
  OS << "</g>\n</svg>\n";
}

void perfmodel::printHTML(llvm::raw_ostream &OS, const AnalysisReport &R) {
  std::string Svg, Text;
  llvm::raw_string_ostream SO(Svg), TO(Text);
  printRooflineSVG(SO, R);
  printText(TO, R);
  SO.flush();
  TO.flush();
  // Inline SVG: drop the XML declaration and the marker comment.
  for (int I = 0; I < 2 && Svg.rfind("<", 0) == 0 && Svg.rfind("<svg", 0) != 0; ++I)
    Svg = Svg.substr(Svg.find('\n') + 1);
  const std::string Title =
      "perfmodel: " + (R.IR ? R.IR->File : std::string()) + " on " + R.Machine->Name;
  OS << "<!DOCTYPE html>\n<!-- generated by perfmodel analyze -->\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << escapeXml(Title) << "</title>\n<style>\n"
     << "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:1.5em;color:#222}\n"
     << ".wrap{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}\n"
     << "table{border-collapse:collapse;font-size:13px;margin-bottom:1.2em}\n"
     << "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}\n"
     << "th:first-child,td:first-child{text-align:left}\n"
     << "pre{font-size:12px;background:#f7f7f7;padding:1em;overflow-x:auto}\n"
     << "</style>\n</head>\n<body>\n<h1>" << escapeXml(Title) << "</h1>\n";
  OS << "<div class=\"wrap\">\n<div>" << Svg << "</div>\n<div>\n";
  unsigned Id = 0;
  for (const LoopReport &L : R.Loops) {
    ++Id;
    OS << "<h3>[" << Id << "] " << escapeXml(L.Loop->Loc.str() + " in " + L.Loop->Function)
       << "</h3>\n";
    if (!L.Loop->Modelled) {
      OS << "<p>not modelled: " << escapeXml(L.Loop->Reason) << "</p>\n";
      continue;
    }
    std::vector<const Prediction *> Ps = L.predictions();
    if (Ps.empty())
      continue;
    OS << "<table>\n<tr><th>data in</th>";
    for (const Prediction *P : Ps)
      OS << "<th>" << escapeXml(P->Model) << " cy/it</th><th>" << escapeXml(P->Model)
         << " GFLOP/s</th>";
    OS << "</tr>\n";
    const Prediction *Longest = Ps[0];
    for (const Prediction *P : Ps)
      if (P->Levels.size() > Longest->Levels.size())
        Longest = P;
    for (const LevelPrediction &Lv : Longest->Levels) {
      bool Here = Lv.Level == Longest->DataLevel;
      OS << "<tr" << (Here ? " style=\"font-weight:bold\"" : "") << "><td>"
         << escapeXml(Lv.Level) << (Here ? " (working set)" : "") << "</td>";
      for (const Prediction *P : Ps) {
        const LevelPrediction *Match = nullptr;
        for (const LevelPrediction &X : P->Levels)
          if (X.Level == Lv.Level)
            Match = &X;
        if (P->Ok && Match)
          OS << "<td>" << formatNumber(Match->CyclesPerIt) << "</td><td>"
             << formatNumber(Match->GFlops) << "</td>";
        else
          OS << "<td>-</td><td>-</td>";
      }
      OS << "</tr>\n";
    }
    OS << "</table>\n";
    for (const Prediction *P : Ps)
      if (P->Ok && !P->Advice.empty())
        OS << "<p><b>" << escapeXml(P->Model) << ":</b> " << escapeXml(P->Advice) << "</p>\n";
  }
  OS << "</div>\n</div>\n<h2>Full report</h2>\n<pre>" << escapeXml(Text) << "</pre>\n";
  OS << "</body>\n</html>\n";
}

void perfmodel::printSweepText(llvm::raw_ostream &OS, const SweepReport &R) {
  OS << "perfmodel sweep " << R.File << "\nmachine: " << R.Machine->Name << ", "
     << formatNumber(R.Machine->ClockGHz) << " GHz\n";
  for (const SweepLoop &L : R.Loops) {
    OS << "\n" << L.Title << "\n";
    if (!L.Reason.empty()) {
      OS << "    not modelled: " << L.Reason << "\n";
      continue;
    }
    std::vector<std::vector<std::string>> Rows;
    std::vector<std::string> Head = {R.Param, "working set", "data in"};
    for (const std::string &M : L.Models)
      Head.push_back(M + (L.NoFlops ? " cy/it" : " GFLOP/s"));
    Head.push_back("bottleneck (" + (L.Models.empty() ? std::string() : L.Models[0]) + ")");
    Rows.push_back(Head);
    for (const SweepRow &Row : L.Rows) {
      std::vector<std::string> Cells = {
          std::to_string(Row.Value),
          Row.WorkingSetBytes ? formatBytes(*Row.WorkingSetBytes) : "?", Row.DataLevel};
      for (double V : Row.Values)
        Cells.push_back(std::isnan(V) ? "-" : formatNumber(V));
      Cells.push_back(Row.Bottlenecks.empty() ? "-" : Row.Bottlenecks[0]);
      Rows.push_back(Cells);
    }
    std::vector<bool> Right(Head.size(), true);
    Right[2] = Right.back() = false;
    printTextTable(OS, Rows, 4, Right);
  }
}

void perfmodel::printSweepSVG(llvm::raw_ostream &OS, const SweepReport &R) {
  const MachineModel &M = *R.Machine;
  const double Left = 70, PanelW = 600, PanelH = 300, Gap = 90, Top = 50;
  std::vector<const SweepLoop *> Panels;
  for (const SweepLoop &L : R.Loops)
    if (L.Reason.empty() && !L.Rows.empty())
      Panels.push_back(&L);
  double Width = Left + PanelW + 200, Height = Top + std::max<size_t>(1, Panels.size()) * (PanelH + Gap);
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- generated by perfmodel sweep -->\n";
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(Width) << "\" height=\""
     << fmt(Height) << "\" viewBox=\"0 0 " << fmt(Width) << " " << fmt(Height)
     << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  OS << "<title>" << escapeXml("perfmodel sweep " + R.File + " on " + M.Name) << "</title>\n";
  OS << "<rect x=\"0\" y=\"0\" width=\"" << fmt(Width) << "\" height=\"" << fmt(Height)
     << "\" fill=\"white\"/>\n";
  OS << "<text x=\"" << fmt(Left) << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">"
     << escapeXml("Predicted performance vs working set, " + M.Name) << "</text>\n";
  static const char *ModelColour[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7"};
  for (size_t PI = 0; PI < Panels.size(); ++PI) {
    const SweepLoop &L = *Panels[PI];
    double PTop = Top + PI * (PanelH + Gap);
    double X0 = std::numeric_limits<double>::infinity(), X1 = 0, Y0 = X0, Y1 = 0;
    for (const SweepRow &Row : L.Rows) {
      if (!Row.WorkingSetBytes || *Row.WorkingSetBytes <= 0)
        continue;
      X0 = std::min(X0, *Row.WorkingSetBytes);
      X1 = std::max(X1, *Row.WorkingSetBytes);
      for (double V : Row.Values)
        if (!std::isnan(V) && V > 0) {
          Y0 = std::min(Y0, V);
          Y1 = std::max(Y1, V);
        }
    }
    OS << "<text x=\"" << fmt(Left) << "\" y=\"" << fmt(PTop - 8) << "\" font-weight=\"bold\">"
       << escapeXml(L.Title) << "</text>\n";
    if (!(X1 > 0) || !(Y1 > 0) || X1 <= X0 * 1.0001) {
      OS << "<text x=\"" << fmt(Left) << "\" y=\"" << fmt(PTop + 20) << "\" fill=\"#555\">"
         << escapeXml(X1 > 0 && X1 <= X0 * 1.0001
                          ? "the working set does not depend on " + R.Param + " (" +
                                formatBytes(X1) + "): nothing to plot"
                          : "no prediction to plot")
         << "</text>\n";
      continue;
    }
    Axes A{powerBelow(X0, 2), powerAbove(X1 * 1.01, 2), powerBelow(Y0 / 1.5, 10),
           powerAbove(Y1 * 1.5, 10)};
    if (A.X1 <= A.X0)
      A.X1 = A.X0 * 2;
    A.Left = Left;
    A.Top = PTop;
    A.W = PanelW;
    A.H = PanelH;
    OS << "<rect x=\"" << fmt(A.Left) << "\" y=\"" << fmt(A.Top) << "\" width=\"" << fmt(A.W)
       << "\" height=\"" << fmt(A.H) << "\" fill=\"none\" stroke=\"#333\"/>\n";
    // Ticks: powers of 4 bytes on x, decades on y.
    OS << "<g font-size=\"10\" fill=\"#333\">\n";
    for (double X = A.X0; X <= A.X1 * 1.0001; X *= 4)
      OS << "<line x1=\"" << fmt(A.x(X)) << "\" y1=\"" << fmt(A.Top) << "\" x2=\""
         << fmt(A.x(X)) << "\" y2=\"" << fmt(A.Top + A.H) << "\" stroke=\"#eee\"/><text x=\""
         << fmt(A.x(X)) << "\" y=\"" << fmt(A.Top + A.H + 14) << "\" text-anchor=\"middle\">"
         << escapeXml(formatBytes(X)) << "</text>\n";
    for (double Y = A.Y0; Y <= A.Y1 * 1.0001; Y *= 10)
      OS << "<line x1=\"" << fmt(A.Left) << "\" y1=\"" << fmt(A.y(Y)) << "\" x2=\""
         << fmt(A.Left + A.W) << "\" y2=\"" << fmt(A.y(Y)) << "\" stroke=\"#eee\"/><text x=\""
         << fmt(A.Left - 6) << "\" y=\"" << fmt(A.y(Y) + 4) << "\" text-anchor=\"end\">"
         << formatNumber(Y) << "</text>\n";
    OS << "</g>\n";
    OS << "<text x=\"" << fmt(A.Left + A.W / 2) << "\" y=\"" << fmt(A.Top + A.H + 32)
       << "\" text-anchor=\"middle\">working set (" << escapeXml(R.Param) << " swept)</text>\n";
    OS << "<text transform=\"translate(18," << fmt(A.Top + A.H / 2)
       << ") rotate(-90)\" text-anchor=\"middle\">" << (L.NoFlops ? "cy/it" : "GFLOP/s")
       << "</text>\n";
    // Cache capacities (per core's share of a shared level) as vertical lines.
    for (const CacheLevel &C : M.Caches) {
      double Cap = double(C.SizeBytes);
      if (Cap < A.X0 || Cap > A.X1)
        continue;
      OS << "<line x1=\"" << fmt(A.x(Cap)) << "\" y1=\"" << fmt(A.Top) << "\" x2=\""
         << fmt(A.x(Cap)) << "\" y2=\"" << fmt(A.Top + A.H)
         << "\" stroke=\"#888\" stroke-dasharray=\"4,3\"/><text x=\"" << fmt(A.x(Cap) + 3)
         << "\" y=\"" << fmt(A.Top + 12) << "\" font-size=\"10\" fill=\"#555\">"
         << escapeXml(C.Name + " " + formatBytes(Cap)) << "</text>\n";
    }
    // A polyline per model.
    for (size_t MI = 0; MI < L.Models.size(); ++MI) {
      std::string Pts;
      for (const SweepRow &Row : L.Rows) {
        if (!Row.WorkingSetBytes || MI >= Row.Values.size() || std::isnan(Row.Values[MI]) ||
            Row.Values[MI] <= 0)
          continue;
        Pts += fmt(A.x(*Row.WorkingSetBytes)) + "," + fmt(A.y(Row.Values[MI])) + " ";
      }
      if (Pts.empty())
        continue;
      const char *Col = ModelColour[MI % 4];
      OS << "<polyline points=\"" << Pts << "\" fill=\"none\" stroke=\"" << Col
         << "\" stroke-width=\"2\" class=\"model\"/>\n";
      double LY = A.Top + 16 + 16 * MI;
      OS << "<line x1=\"" << fmt(A.Left + A.W + 14) << "\" y1=\"" << fmt(LY - 4) << "\" x2=\""
         << fmt(A.Left + A.W + 34) << "\" y2=\"" << fmt(LY - 4) << "\" stroke=\"" << Col
         << "\" stroke-width=\"2\"/><text x=\"" << fmt(A.Left + A.W + 40) << "\" y=\""
         << fmt(LY) << "\">" << escapeXml(L.Models[MI]) << "</text>\n";
    }
  }
  OS << "</svg>\n";
}

void perfmodel::printAccuracySVG(llvm::raw_ostream &OS, const std::string &Title,
                                 const std::vector<AccuracyPanel> &Panels) {
  const double Left = 70, Side = 420, Gap = 90, Top = 60;
  double Width = Left + Side + 160, Height = Top + std::max<size_t>(1, Panels.size()) * (Side + Gap);
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- generated by perfmodel validate -->\n";
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(Width) << "\" height=\""
     << fmt(Height) << "\" viewBox=\"0 0 " << fmt(Width) << " " << fmt(Height)
     << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  OS << "<title>" << escapeXml(Title) << "</title>\n";
  OS << "<rect x=\"0\" y=\"0\" width=\"" << fmt(Width) << "\" height=\"" << fmt(Height)
     << "\" fill=\"white\"/>\n";
  OS << "<text x=\"" << fmt(Left) << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">"
     << escapeXml(Title) << "</text>\n";
  static const char *LevelNames[] = {"L1", "L2", "L3", "MEM"};
  for (size_t PI = 0; PI < Panels.size(); ++PI) {
    const AccuracyPanel &P = Panels[PI];
    double PTop = Top + PI * (Side + Gap);
    OS << "<text x=\"" << fmt(Left) << "\" y=\"" << fmt(PTop - 8) << "\" font-weight=\"bold\">"
       << escapeXml(P.Title) << "</text>\n";
    // One range for both axes, so that the diagonal is at 45 degrees.
    double Lo = std::numeric_limits<double>::infinity(), Hi = 0;
    for (const AccuracyPoint &X : P.Points)
      for (double V : {X.Measured, X.Predicted})
        if (V > 0) {
          Lo = std::min(Lo, V);
          Hi = std::max(Hi, V);
        }
    if (!(Hi > 0)) {
      OS << "<text x=\"" << fmt(Left) << "\" y=\"" << fmt(PTop + 20)
         << "\" fill=\"#555\">no row to plot</text>\n";
      continue;
    }
    Axes A{powerBelow(Lo / 1.2, 10), powerAbove(Hi * 1.2, 10), 0, 0};
    if (A.X1 <= A.X0)
      A.X1 = A.X0 * 10;
    A.Y0 = A.X0;
    A.Y1 = A.X1;
    A.Left = Left;
    A.Top = PTop;
    A.W = A.H = Side;
    OS << "<rect x=\"" << fmt(A.Left) << "\" y=\"" << fmt(A.Top) << "\" width=\"" << fmt(A.W)
       << "\" height=\"" << fmt(A.H) << "\" fill=\"none\" stroke=\"#333\"/>\n";
    OS << "<g font-size=\"10\" fill=\"#333\">\n";
    for (double V = A.X0; V <= A.X1 * 1.0001; V *= 10)
      OS << "<line x1=\"" << fmt(A.x(V)) << "\" y1=\"" << fmt(A.Top) << "\" x2=\"" << fmt(A.x(V))
         << "\" y2=\"" << fmt(A.Top + A.H) << "\" stroke=\"#eee\"/><text x=\"" << fmt(A.x(V))
         << "\" y=\"" << fmt(A.Top + A.H + 14) << "\" text-anchor=\"middle\">" << formatNumber(V)
         << "</text>\n<line x1=\"" << fmt(A.Left) << "\" y1=\"" << fmt(A.y(V)) << "\" x2=\""
         << fmt(A.Left + A.W) << "\" y2=\"" << fmt(A.y(V)) << "\" stroke=\"#eee\"/><text x=\""
         << fmt(A.Left - 6) << "\" y=\"" << fmt(A.y(V) + 4) << "\" text-anchor=\"end\">"
         << formatNumber(V) << "</text>\n";
    OS << "</g>\n";
    // The 10 % band around the diagonal, then the diagonal.
    OS << "<polygon points=\"" << fmt(A.x(A.X0)) << "," << fmt(A.y(A.X0 * 1.1)) << " "
       << fmt(A.x(A.X1 / 1.1)) << "," << fmt(A.y(A.X1)) << " " << fmt(A.x(A.X1)) << ","
       << fmt(A.y(A.X1)) << " " << fmt(A.x(A.X1)) << "," << fmt(A.y(A.X1 * 0.9)) << " "
       << fmt(A.x(A.X0 / 0.9)) << "," << fmt(A.y(A.X0)) << " " << fmt(A.x(A.X0)) << ","
       << fmt(A.y(A.X0)) << "\" fill=\"#ddd\" fill-opacity=\"0.6\"/>\n";
    OS << "<line x1=\"" << fmt(A.x(A.X0)) << "\" y1=\"" << fmt(A.y(A.X0)) << "\" x2=\""
       << fmt(A.x(A.X1)) << "\" y2=\"" << fmt(A.y(A.X1)) << "\" stroke=\"#888\"/>\n";
    OS << "<text x=\"" << fmt(A.Left + A.W / 2) << "\" y=\"" << fmt(A.Top + A.H + 32)
       << "\" text-anchor=\"middle\">measured cy/it</text>\n";
    OS << "<text transform=\"translate(18," << fmt(A.Top + A.H / 2)
       << ") rotate(-90)\" text-anchor=\"middle\">predicted cy/it (headline)</text>\n";
    for (const AccuracyPoint &X : P.Points) {
      if (!(X.Measured > 0) || !(X.Predicted > 0))
        continue;
      size_t LI = std::find(std::begin(LevelNames), std::end(LevelNames), X.Level) -
                  std::begin(LevelNames);
      OS << "<circle cx=\"" << fmt(A.x(X.Measured)) << "\" cy=\"" << fmt(A.y(X.Predicted))
         << "\" r=\"4\" fill=\"" << levelColour(LI) << "\" fill-opacity=\"0.8\"><title>"
         << escapeXml(X.Label) << "</title></circle>\n";
    }
    for (size_t LI = 0; LI < 4; ++LI) {
      double LY = A.Top + 16 + 18 * LI;
      OS << "<circle cx=\"" << fmt(A.Left + A.W + 20) << "\" cy=\"" << fmt(LY - 4)
         << "\" r=\"4\" fill=\"" << levelColour(LI) << "\"/><text x=\""
         << fmt(A.Left + A.W + 30) << "\" y=\"" << fmt(LY) << "\">data in " << LevelNames[LI]
         << "</text>\n";
    }
    OS << "<text x=\"" << fmt(A.Left + A.W + 14) << "\" y=\"" << fmt(A.Top + 100)
       << "\" font-size=\"10\" fill=\"#555\">grey: within 10 %</text>\n";
  }
  OS << "</svg>\n";
}

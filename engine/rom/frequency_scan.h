#pragma once
/// @file
/// The frequency scan: training runs the written model once more under sines of its loads at
/// frequencies across the band its training runs swung in, over the loads' whole training range, with
/// the full model. A model can follow every training run and miss loads that swing between them: a
/// local model whose charts fit the design points can miss by several times its held-out error in a
/// gap of the design (the machine on isolators' local PCA, sines of 178 N: 2.3 % off at 3.9 Hz, 4.6 % at
/// 4.5 Hz, 1.0 % at 4.7 Hz), where the joint distance finds the run near its training samples. The scan
/// measures that miss, and a run whose dominant load swings inside the scanned band, nearly as far as the
/// scan's sines did, expects at least NeighbourEnvelope::kExpectedErrorFactor times the scan's error at its
/// frequency, as runs beyond a probe do (LoadBand::scanError: between two scanned frequencies the worse of
/// the two; judged, as the band is, over runs of two periods of the trained frequency or more).
///
/// The sines: every load of the longest training run's load case (its design point's, for a design of
/// experiments) swinging over its range in the training runs (a sine about the range's middle), all in
/// phase, from that run's start at its spacing over its span; kScanFrequencies frequencies
/// spaced evenly in log between the lowest and the highest effective frequency of the training runs'
/// dominant load (LoadBand::dominantFrequency).

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace mbdrom {

/// Sines a scan runs, at most (one where the training runs swung at one frequency).
inline constexpr int kScanFrequencies = 13;

struct FrequencyScan {
  bool done = false;  ///< false: not scanned (`note` says why)
  std::string note;
  std::string levels;  ///< each load's range as its middle and half-width, e.g. "push 2 N ± 1.5 N"
  struct Point {
    double frequency = 0.0;  ///< the sine's frequency [Hz]
    double omega = 0.0;      ///< its run's dominant load's effective frequency (LoadBand) [rad/s]
    bool failed = false;     ///< the reduced run blew up
    double error = 0.0;      ///< relative RMS error of the worst point over the whole run [-] (1: failed)
    std::string point;       ///< that point
  };
  std::vector<Point> points;  ///< by frequency, every sine run
  /// True when the runs measured their dominant load faster as the sines got faster: a run is then looked
  /// up by the frequency it measures. A load on a body that turns far makes generalised loads that swing
  /// at other frequencies than the load (the Furuta pendulum's motor torque: 2.9 Hz under a sine of 1.5 Hz
  /// and of 2 Hz); such a scan is reported and judges no run.
  bool measuredInOrder() const;
  /// One line, e.g. "sines of the loads (push 2 N ± 1.5 N) at 13 frequencies from 0.5 Hz to 2 Hz: followed
  /// within 1.2 % relative RMS at every one (its worst at 1.1 Hz, point A)", or "... missed by 9.1 %
  /// relative RMS at 4.5 Hz (point B), followed within the 5 % goal at 11 of them".
  std::string text() const;
  nlohmann::ordered_json toJson() const;

 private:
  std::string resultText() const;
};

/// The scan of `rom` (trained on `dataset` of `model`): not done for a model that takes no loads, whose
/// loads' band is unknown or whose training loads did not swing, whose joint envelope is not calibrated,
/// with parameters of the loads, when no training run sampled uniformly from t = 0 names a load case with
/// loads (or a design point of one), or when no sine's runs could be made. Cancelled when `monitor` stops
/// it.
FrequencyScan scanFrequencies(const Model& model, const ReducedModel& rom, const Dataset& dataset,
                              Monitor& monitor);

/// The recorded scan's line of `rom` (metrics "frequency_scan"), "" when it was not scanned; `missed`
/// (optional): the model blew up under a sine of it, or missed one by more than the goal over
/// NeighbourEnvelope::kExpectedErrorFactor (the runs that swing there then warn); `judgesRuns`
/// (optional): runs take bounds from it (FrequencyScan::measuredInOrder).
std::string frequencyScanText(const ReducedModel& rom, bool* missed = nullptr, bool* judgesRuns = nullptr);

/// One of training's probes of a model, as its user is told of it.
struct ProbeReport {
  std::string kind;     ///< "step probe", "pulse probe" or "frequency scan"
  std::string line;     ///< its recorded line (stepProbeText, releaseProbeText, frequencyScanText)
  std::string warning;  ///< when it missed (their `missed`): "<kind>: <line>; runs ... and warn", else empty
};
/// The step probe, pulse probe and frequency scan `rom` recorded, in that order.
std::vector<ProbeReport> probeReports(const ReducedModel& rom);
/// The warnings of probeReports, those that missed: the CLI's train, the workbench and Python warn with
/// them; empty when none missed.
std::vector<std::string> probeWarnings(const ReducedModel& rom);

}  // namespace mbdrom

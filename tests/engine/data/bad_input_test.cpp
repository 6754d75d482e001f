// The bad-input catalogue (tests/data/bad/, described in its README.md): every
// malformed or hostile file goes through the engine's real loader and must give
// an mbdrom::Error whose message names the file and the culprit. No crash, no
// hang, no bare std::exception. Very large inputs are generated at test time.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "engine/project/project.h"
#include "engine/rom/reduced_model.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include "tests/test_paths.h"

using namespace mbdrom;
namespace fs = std::filesystem;

namespace {

enum class Loader {
  Model,          // readModel
  TrajectoryCsv,  // readTrajectoryCsv
  TrajectoryRun,  // readTrajectoryCsv + runFromTable + addRun on the pendulum, as `mbdrom-cli train` does
  Dataset,        // loadDataset
  ReducedModel,   // loadReducedModel
  Project,        // readProject of a directory holding the file as project.json
};

struct BadInput {
  const char* file;
  Loader loader;
  const char* message;           // substring of the error message
  const char* detail = nullptr;  // a second substring, when the first cannot hold it all
};

// clang-format off
const BadInput kCatalogue[] = {
    // Model files.
    {"model_truncated.json", Loader::Model, "malformed JSON: [json.exception.parse_error.101] parse error at line 36, column 5: syntax error while parsing object - unexpected end of input"},
    {"model_empty.json", Loader::Model, "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 1: syntax error while parsing value - unexpected end of input"},
    {"model_binary_garbage.json", Loader::Model, "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 1: syntax error while parsing value - invalid literal"},
    {"model_is_csv.json", Loader::Model, "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing value - invalid literal; last read: 't,'"},
    {"model_is_png.json", Loader::Model, "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 1: syntax error while parsing value - invalid literal"},
    {"model_top_level_array.json", Loader::Model, "not a model file (expected a JSON object)"},
    {"model_control_character_name.json", Loader::Model, "name: the name has a control character"},
    {"model_number_1e400.json", Loader::Model, "malformed JSON: [json.exception.out_of_range.406] number overflow parsing '1e400'"},
    {"model_nan_string.json", Loader::Model, "bodies[0] \"bob\": \"mass\" must be a number"},
    {"model_nan_bare.json", Loader::Model, "malformed JSON: [json.exception.parse_error.101] parse error at line 48, column 12: syntax error while parsing value - invalid literal; last read: '\"mass\": N'"},
    {"model_inf_bare.json", Loader::Model, "malformed JSON: [json.exception.parse_error.101] parse error at line 6, column 3: syntax error while parsing value - invalid literal"},
    {"model_inf_string.json", Loader::Model, "model: \"gravity\" must be a number"},
    {"model_deep_nesting.json", Loader::Model, "nested more than 256 levels deep"},
    {"model_unknown_body.json", Loader::Model, "joints[0] \"plane\": body \"bobb\" is not defined"},
    {"model_duplicate_point.json", Loader::Model, "points[2] \"A\": duplicate name"},
    {"model_point_listed_twice.json", Loader::Model, "bodies[0] \"bob\": point \"A\" is listed twice"},
    {"model_joint_to_itself.json", Loader::Model, "joints[0] \"plane\": body1 and body2 are the same"},
    {"model_vec3_two_entries.json", Loader::Model, "points[1] \"A\": \"position\" must have 3 numbers"},
    {"model_negative_mass.json", Loader::Model, "bodies[0] \"bob\": mass must be positive (got -1.000000)"},
    {"model_not_unit_vector.json", Loader::Model, "vectors[0] \"z0\": not a unit vector (length 2.000000)"},
    {"model_inertia_not_positive_definite.json", Loader::Model, "bodies[0] \"arm\": inertia tensor is not positive definite"},
    {"model_inertia_not_symmetric.json", Loader::Model, "bodies[0] \"arm\": inertia tensor is not symmetric"},
    {"model_wrong_format.json", Loader::Model, "not a model file (\"format\" must be \"mbdrom-model\")"},
    {"model_version_2.json", Loader::Model, "unsupported model file version 2 (this program reads version 1)"},
    {"model_version_string.json", Loader::Model, "\"version\" is missing or not an integer"},
    {"model_unknown_key.json", Loader::Model, "bodies[0] \"bob\": unknown key \"masss\""},
    {"model_missing_table_csv.json", Loader::Model, "drivers[0] \"lift\": function: ", "/no_such_table.csv: cannot open the table CSV"},

    // Trajectory CSV files.
    {"traj_empty.csv", Loader::TrajectoryCsv, "traj_empty.csv: empty file (no header)"},
    {"traj_repeated_column.csv", Loader::TrajectoryCsv, "traj_repeated_column.csv:1: column 5 \"A.x\" repeats column 2"},
    {"traj_ragged_row.csv", Loader::TrajectoryCsv, "traj_ragged_row.csv:3: expected 37 columns, got 5"},
    {"traj_extra_column.csv", Loader::TrajectoryCsv, "traj_extra_column.csv:3: more than 37 columns"},
    {"traj_non_numeric.csv", Loader::TrajectoryCsv, "traj_non_numeric.csv:3: column 5 (A.x) is not a number"},
    {"traj_semicolon.csv", Loader::TrajectoryCsv, "traj_semicolon.csv:2: column 1 (t;O.x;O.y;O.z;"},
    {"traj_binary_garbage.csv", Loader::TrajectoryCsv, "traj_binary_garbage.csv:2: column 1 ("},
    {"traj_missing_header.csv", Loader::TrajectoryRun, "run \"traj_missing_header.csv\" is not a trajectory of mechanism \"pendulum\": column 1 is \"0.0\", expected \"t\""},
    {"traj_run_huge_value.csv", Loader::TrajectoryRun, "run \"traj_run_huge_value.csv\": row 2 (t = 0.01), column \"A.x\" is 1e+300 (beyond 1e15)"},
    {"traj_other_mechanism.csv", Loader::TrajectoryRun, "run \"traj_other_mechanism.csv\" is not a trajectory of mechanism \"pendulum\": column 2 is \"P.x\", expected \"O.x\""},
    {"traj_header_only.csv", Loader::TrajectoryRun, "run \"traj_header_only.csv\": no samples"},
    {"traj_time_not_increasing.csv", Loader::TrajectoryRun, "run \"traj_time_not_increasing.csv\", row 3: time 0.010000 does not increase"},
    {"traj_nan.csv", Loader::TrajectoryRun, "run \"traj_nan.csv\": row 2 (t = 0.01), column \"A.x\" is nan (not finite)"},

    // Dataset files.
    {"dataset_wrong_format.json", Loader::Dataset, "dataset_wrong_format.json: not an mbdrom dataset (format)"},
    {"dataset_truncated.json", Loader::Dataset, "dataset_truncated.json: malformed JSON: [json.exception.parse_error.101] parse error at line 27, column 9: syntax error while parsing value - unexpected end of input"},
    {"dataset_bad_hash.json", Loader::Dataset, "dataset_bad_hash.json: bad mechanism hash"},
    {"dataset_hash_overflow.json", Loader::Dataset, "dataset_hash_overflow.json: bad mechanism hash"},
    {"dataset_ragged_matrix.json", Loader::Dataset, "dataset_ragged_matrix.json: run \"r1\": qd[1]: expected 2 numbers"},
    {"dataset_null_value.json", Loader::Dataset, "dataset_null_value.json: run \"r1\", row 2 (t = 0.010000): f_ext.A.y is not a finite number"},
    {"dataset_time_decreasing.json", Loader::Dataset, "dataset_time_decreasing.json: run \"r1\", row 3: time 0.010000 does not increase"},
    {"dataset_vector_index_out_of_range.json", Loader::Dataset, "dataset_vector_index_out_of_range.json: vector_coordinates: index 7 out of range"},
    {"dataset_mass_matrix_wrong_size.json", Loader::Dataset, "dataset_mass_matrix_wrong_size.json: mass_matrix must be 2 x 2"},
    {"dataset_missing_runs.json", Loader::Dataset, "dataset_missing_runs.json: bad dataset: [json.exception.out_of_range.403] key 'runs' not found"},
    {"dataset_duplicate_run.json", Loader::Dataset, "dataset_duplicate_run.json: run \"r1\": the dataset already has a run of this name"},

    // Trained-model files.
    {"rom_wrong_format.json", Loader::ReducedModel, "rom_wrong_format.json: not an mbdrom trained-model file (\"format\": \"mbdrom-rom\")"},
    {"rom_version_2.json", Loader::ReducedModel, "rom_version_2.json: unsupported trained-model version 2 (expected 1)"},
    {"rom_unknown_method.json", Loader::ReducedModel, "rom_unknown_method.json: unknown method \"kriging\" (known: pod, ae, pca"},
    {"rom_matrix_wrong_rows.json", Loader::ReducedModel, "rom_matrix_wrong_rows.json: matrices.basis: expected 3 rows, got 2"},
    {"rom_matrix_wrong_cols.json", Loader::ReducedModel, "rom_matrix_wrong_cols.json: matrices.mass[0]: expected 1 numbers"},
    {"rom_matrix_not_number.json", Loader::ReducedModel, "rom_matrix_not_number.json: matrices.stiffness[0][0]: not a number"},
    {"rom_bad_hash.json", Loader::ReducedModel, "rom_bad_hash.json: mechanism.hash must be 16 hex digits"},
    {"rom_envelope_low_text.json", Loader::ReducedModel,
     "rom_envelope_low_text.json: envelope.groups[0]: low must be an array of numbers, got \"low\""},
    {"rom_envelope_unit_zero.json", Loader::ReducedModel,
     "rom_envelope_unit_zero.json: envelope.groups[1]: unit must be > 0, got 0"},
    {"rom_speed_check_text.json", Loader::ReducedModel,
     "rom_speed_check_text.json: metrics.speed_check: reduced_seconds_per_simulated_second must be a number >= 0, "
     "got \"fast\""},
    {"rom_sindy_known_forces_number.json", Loader::ReducedModel,
     "rom_sindy_known_forces_number.json: matrices.known_forces must be an array of names, got 5"},
    {"rom_short_hash.json", Loader::ReducedModel, "rom_short_hash.json: mechanism.hash must be 16 hex digits"},
    {"rom_truncated.json", Loader::ReducedModel, "rom_truncated.json: malformed JSON: [json.exception.parse_error.101] parse error at line 35, column 1: syntax error while parsing value - unexpected end of input"},
    {"rom_mass_not_positive_definite.json", Loader::ReducedModel, "rom_mass_not_positive_definite.json: matrices.mass is not positive definite"},
    {"rom_scale_not_positive.json", Loader::ReducedModel, "rom_scale_not_positive.json: normalisation.scale must be > 0"},
    {"rom_metrics_stopped_early_number.json", Loader::ReducedModel, "rom_metrics_stopped_early_number.json: metrics.stopped_early must be an array of strings"},
    {"rom_metrics_parameter_range_text.json", Loader::ReducedModel, "rom_metrics_parameter_range_text.json: metrics.parameter_ranges.level must be a [low, high] pair of numbers"},
    {"rom_deep_metrics.json", Loader::ReducedModel, "rom_deep_metrics.json: nested more than 256 levels deep"},
    {"rom_huge_nr.json", Loader::ReducedModel, "rom_huge_nr.json: matrices.basis[0]: expected 2000000000 numbers"},
    {"rom_ae_huge_network.json", Loader::ReducedModel, "rom_ae_huge_network.json: networks.encoder: network: parameters: expected 2500050000, got 2"},

    // Project manifests.
    {"project_path_escape.json", Loader::Project, "runs[0]: file \"../x.csv\" must be a relative path inside the project"},
    {"project_absolute_model.json", Loader::Project, "model: \"/etc/passwd\" must be a relative path inside the project"},
    {"project_missing_file.json", Loader::Project, "model: file \"model.json\" is missing"},
    {"project_bad_status.json", Loader::Project, "runs[0]: status \"crashed\" (expected completed, cancelled or failed)"},
    {"project_duplicate_name.json", Loader::Project, "runs[1]: duplicate name \"run 1\""},
    {"project_file_used_twice.json", Loader::Project, "datasets[0]: file \"runs/run_1.csv\" is used twice"},
    {"project_negative_dt.json", Loader::Project, "runs[0]: \"dt\" must be finite and >= 0"},
    {"project_wrong_format.json", Loader::Project, "format: not an mbdrom project manifest (expected \"mbdrom-project\")"},
    {"project_not_json.json", Loader::Project, "malformed JSON: [json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing value - invalid literal; last read: 'na'"},
};
// clang-format on

const fs::path kBadDir = fs::path(mbdrom::test::sourcePath()) / "tests" / "data" / "bad";

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "mbdrom_bad_input_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const Model& pendulum() {
  static const Model model =
      readModel((fs::path(mbdrom::test::sourcePath()) / "resources" / "examples" / "pendulum.json").string());
  return model;
}

// Runs the loader; returns the mbdrom::Error message, or "(no error)". Any other
// exception escapes to Catch and fails the test: front ends only expect Error.
std::string messageOf(Loader loader, const fs::path& path) {
  try {
    switch (loader) {
      case Loader::Model: readModel(path.string()); break;
      case Loader::TrajectoryCsv: readTrajectoryCsv(path.string()); break;
      case Loader::TrajectoryRun: {
        Dataset dataset = makeDataset(pendulum());
        addRun(dataset, runFromTable(pendulum(), readTrajectoryCsv(path.string()), path.filename().string()));
        break;
      }
      case Loader::Dataset: loadDataset(path.string()); break;
      case Loader::ReducedModel: loadReducedModel(path.string()); break;
      case Loader::Project: {
        // A project is a directory: named after the file, so the message names it too.
        const fs::path dir = scratch(path.filename().string());
        fs::copy_file(path, dir / "project.json");
        readProject(dir.string());
        break;
      }
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void checkLoader(Loader loader) {
  for (const BadInput& bad : kCatalogue) {
    if (bad.loader != loader) continue;
    DYNAMIC_SECTION(bad.file) {
      const std::string message = messageOf(loader, kBadDir / bad.file);
      CHECK_THAT(message, Catch::Contains(bad.message) && Catch::Contains(bad.file));
      if (bad.detail) CHECK_THAT(message, Catch::Contains(bad.detail));
    }
  }
}

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out);
}

}  // namespace

TEST_CASE("every file of the bad-input catalogue has an expectation, and is small", "[bad_input_test]") {
  std::set<std::string> listed;
  for (const BadInput& bad : kCatalogue) CHECK(listed.insert(bad.file).second);  // one entry per file
  std::set<std::string> present;
  for (const fs::directory_entry& e : fs::directory_iterator(kBadDir)) {
    const std::string name = e.path().filename().string();
    if (name == "README.md") continue;
    present.insert(name);
    INFO(name);
    CHECK(listed.count(name) == 1);
    CHECK(e.file_size() < 50 * 1024);
  }
  for (const std::string& name : listed) {
    INFO(name);
    CHECK(present.count(name) == 1);
  }
  CHECK(present.size() >= 30);
}

TEST_CASE("a bad model file gives an error naming the file and the entry", "[bad_input_test]") {
  checkLoader(Loader::Model);
}

TEST_CASE("a bad trajectory CSV names the file, the line and the column", "[bad_input_test]") {
  checkLoader(Loader::TrajectoryCsv);
}

TEST_CASE("a CSV that is no valid run of the mechanism names the run, the row and the column",
          "[bad_input_test]") {
  checkLoader(Loader::TrajectoryRun);
}

TEST_CASE("a bad dataset file names the file and the run", "[bad_input_test]") {
  checkLoader(Loader::Dataset);
}

TEST_CASE("a bad trained-model file names the file and the matrix, and allocates no absurd size",
          "[bad_input_test]") {
  checkLoader(Loader::ReducedModel);
}

TEST_CASE("a bad project manifest names the entry at fault", "[bad_input_test]") {
  checkLoader(Loader::Project);
}

TEST_CASE("a model file nested 100000 arrays deep is rejected without overflowing the stack",
          "[bad_input_test]") {
  // 200 kB: generated here rather than kept in the catalogue.
  const fs::path path = scratch("deep") / "deep.json";
  writeText(path, R"({"format": "mbdrom-model", "version": 1, "name": )" + std::string(100000, '[') +
                      std::string(100000, ']') + "}\n");
  CHECK(messageOf(Loader::Model, path) == path.string() + ": nested more than 256 levels deep");
}

TEST_CASE("a model file with a million-element vector names the vector", "[bad_input_test]") {
  std::string text = R"({"format": "mbdrom-model", "version": 1, "gravity": [0)";
  text.reserve(2000100);
  for (int i = 1; i < 1000000; ++i) text += ",0";
  text += "]}\n";
  const fs::path path = scratch("million") / "million.json";
  writeText(path, text);
  CHECK(messageOf(Loader::Model, path) ==
        path.string() + ": model: \"gravity\" must have 3 numbers, got 1000000");
}

TEST_CASE("a trajectory CSV with a million rows names its ragged last line", "[bad_input_test]") {
  std::string text = "t,x\n";
  text.reserve(10000000);
  for (int i = 0; i < 1000000; ++i) text += std::to_string(i) + ",1\n";
  text += "1000000\n";  // line 1000002: the x cell is missing
  const fs::path path = scratch("million_rows") / "rows.csv";
  writeText(path, text);
  CHECK(messageOf(Loader::TrajectoryCsv, path) == path.string() + ":1000002: expected 2 columns, got 1");
}

TEST_CASE("a trained-model file nested 100000 arrays deep is refused before anything copies it",
          "[bad_input_test]") {
  // Copying the metrics recursed once per level and overflowed the stack.
  const fs::path path = scratch("deep_rom") / "deep.json";
  writeText(path, R"({"format": "mbdrom-rom", "version": 1, "method": "pod", "metrics": )" +
                      std::string(100000, '[') + std::string(100000, ']') + "}\n");
  CHECK(messageOf(Loader::ReducedModel, path) == path.string() + ": nested more than 256 levels deep");
}

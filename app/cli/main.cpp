#include "app/cli/cli_app.h"

#include <iostream>

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return mbdrom::cli::run({argv + 1, argv + argc}, std::cout, std::cerr);
}

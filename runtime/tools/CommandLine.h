//===- CommandLine.h - CLI11 set-up shared by the runtime tools -*- C++ -*-===//
//
// spyre-run and spyre-npy-compare parse with CLI11 the same way: `--opt
// value` and `--opt=value` anywhere on the line, a repeated option keeps
// its last value (except those that collect one value per use), --help
// shows the tool's usage line and each option's description wrapped at 79
// columns, and usage errors print "TOOL: error: MESSAGE", the usage line and
// a pointer to --help, and exit 2.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_TOOLS_COMMANDLINE_H
#define SPYRE_RUNTIME_TOOLS_COMMANDLINE_H

#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>
#include <string>

namespace spyre::tools {

/// --help with a fixed usage text and wrapped option descriptions.
class HelpFormatter : public CLI::Formatter {
public:
  static constexpr size_t kNameColumns = 22, kLineColumns = 79;

  explicit HelpFormatter(std::string usage) : usage_(std::move(usage)) {}

  std::string make_usage(const CLI::App *, std::string) const override {
    return usage_;
  }

  std::string make_option(const CLI::Option *opt,
                          bool positional) const override {
    std::string out =
        "  " + make_option_name(opt, positional) + make_option_opts(opt);
    size_t column = out.size();
    if (column >= kNameColumns) {
      out += "\n";
      column = 0;
    }
    std::istringstream words(make_option_desc(opt));
    for (std::string word; words >> word;) {
      if (column > kNameColumns && column + 1 + word.size() > kLineColumns) {
        out += "\n";
        column = 0;
      }
      size_t pad = column < kNameColumns ? kNameColumns - column : 1;
      out += std::string(pad, ' ') + word;
      column += pad + word.size();
    }
    return out + "\n";
  }

private:
  std::string usage_;
};

/// A tool's command line: `usage` is its usage text (ending in a newline).
class CommandLine {
public:
  CommandLine(const char *tool, std::string description, std::string usage)
      : tool_(tool), usage_(std::move(usage)),
        app_(std::move(description), tool) {
    app_.formatter(std::make_shared<HelpFormatter>(usage_));
    app_.set_help_flag("-h,--help", "show this help");
    app_.option_defaults()->multi_option_policy(
        CLI::MultiOptionPolicy::TakeLast);
    // Unknown options and extra arguments are left in remaining(), for the
    // tool to name.
    app_.allow_extras();
  }

  CLI::App &app() { return app_; }

  /// Parses the arguments; returns -1 to continue, else the exit code (0
  /// after --help or --version).
  int parse(int argc, char **argv) {
    // CLI11 takes the next argument as the value of an empty `--opt=`.
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' &&
          arg.find('=') == arg.size() - 1)
        return usageError(arg.substr(0, arg.size() - 1) + " needs a value");
    }
    try {
      app_.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
      return app_.exit(e);
    } catch (const CLI::CallForVersion &e) {
      return app_.exit(e);
    } catch (const CLI::ParseError &e) {
      return usageError(e.what());
    }
    return -1;
  }

  /// "unknown option '--x'" for the first option CLI11 did not know; ""
  /// when none.
  std::string unknownOption() const {
    for (const std::string &arg : app_.remaining())
      if (isOption(arg))
        return "unknown option '" + arg + "'";
    return {};
  }

  /// The first argument beyond the tool's positionals; "" when none.
  std::string extraArgument() const {
    for (const std::string &arg : app_.remaining())
      if (!isOption(arg) && arg != "--")
        return arg;
    return {};
  }

  /// Prints a usage error; returns the exit code 2.
  int usageError(const std::string &message) const {
    std::fprintf(stderr,
                 "%s: error: %s\n%sRun '%s --help' for more information.\n",
                 tool_, message.c_str(), usage_.c_str(), tool_);
    return 2;
  }

private:
  static bool isOption(const std::string &arg) {
    return arg.size() > 1 && arg[0] == '-' && arg != "--";
  }

  const char *tool_;
  std::string usage_;
  CLI::App app_;
};

} // namespace spyre::tools

#endif // SPYRE_RUNTIME_TOOLS_COMMANDLINE_H

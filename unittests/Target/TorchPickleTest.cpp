//===- TorchPickleTest.cpp - The restricted torch.save unpickler ----------===//

#include "PickleBytes.h"
#include "spyre/Target/TorchPickle.h"

#include <gtest/gtest.h>

using namespace spyre;
using namespace spyre::test;
using namespace std::string_literals;

namespace {

/// Unpickles `p`; on failure returns nullopt and leaves the message in
/// `error`.
std::optional<std::map<std::string, PickledTensor>>
run(const std::string &p, std::string &error) {
  return unpickleTensorDict(p, "test.pkl", error);
}

std::string weightPickle() {
  return dict({{"fc.weight", parameter(tensor("FloatStorage", "0", 12, 0,
                                              {3, 4}, {4, 1}))},
               {"fc.bias", tensor("HalfStorage", "1", 8, 2, {3}, {2})}});
}

TEST(TorchPickle, AcceptsStateDict) {
  std::string error;
  auto dict = run(weightPickle(), error);
  ASSERT_TRUE(dict) << error;
  ASSERT_EQ(dict->size(), 2u);
  const PickledTensor &w = dict->at("fc.weight");
  EXPECT_EQ(w.storageKey, "0");
  EXPECT_EQ(w.dtype, 7); // float32
  EXPECT_EQ(w.elementBytes, 4);
  EXPECT_EQ(w.storageNumel, 12);
  EXPECT_EQ(w.storageOffset, 0);
  EXPECT_EQ(w.sizes, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(w.strides, (std::vector<int64_t>{4, 1}));
  const PickledTensor &b = dict->at("fc.bias");
  EXPECT_EQ(b.storageKey, "1");
  EXPECT_EQ(b.dtype, 6); // float16
  EXPECT_EQ(b.storageOffset, 2);
  EXPECT_EQ(b.strides, (std::vector<int64_t>{2}));
}

TEST(TorchPickle, AcceptsProtocol4Forms) {
  // OrderedDict() at the top, FRAME, SHORT_BINUNICODE, MEMOIZE/BINGET,
  // STACK_GLOBAL of allowed names, LONG1, and a BUILD on the tensor.
  std::string body =
      shortStr("collections") + shortStr("OrderedDict") + "\x93\x94" +
      ")R\x94" + shortStr("t") + shortStr("torch._utils") +
      shortStr("_rebuild_tensor_v2") + "\x93" + "((" + shortStr("storage") +
      shortStr("torch") + shortStr("BFloat16Storage") + "\x93" +
      shortStr("k_1") + shortStr("cpu") + "\x8a\x02\x00\x01"s /* 256 */ +
      "t\x94Q" + "K\x00"s + "(\x8a\x01\x10t" + "(K\x01t" + "\x89" +
      "h\x00)R"s + "}" + "tRNb" + "s.";
  std::string p = "\x80\x04\x95" + le(body.size(), 8) + body;
  std::string error;
  auto dict = run(p, error);
  ASSERT_TRUE(dict) << error;
  const PickledTensor &t = dict->at("t");
  EXPECT_EQ(t.storageKey, "k_1");
  EXPECT_EQ(t.dtype, 13); // bfloat16
  EXPECT_EQ(t.storageNumel, 256);
  EXPECT_EQ(t.sizes, (std::vector<int64_t>{16}));
}

TEST(TorchPickle, EmptyDict) {
  std::string error;
  auto dict = run(std::string("\x80\x02}q\x00.", 6), error);
  ASSERT_TRUE(dict) << error;
  EXPECT_TRUE(dict->empty());
}

TEST(TorchPickle, RejectsDisallowedGlobal) {
  // The fixture pickle_global_os_system.pt2's data.pkl: the global is
  // rejected when named (nothing calls it).
  std::string p = "\x80\x02" + global("collections", "OrderedDict") +
                  ")Rq\x00("s + str("fc1.weight") + global("os", "system") +
                  "u.";
  std::string error;
  EXPECT_FALSE(run(p, error));
  EXPECT_EQ(error, "disallowed global 'os.system' in pickle test.pkl "
                   "(offset 47)");
}

TEST(TorchPickle, RejectsDisallowedStackGlobal) {
  std::string body = "}" + shortStr("fc1.weight") + shortStr("builtins") +
                     shortStr("eval") + "\x93s.";
  std::string p = "\x80\x04\x95" + le(body.size(), 8) + body;
  std::string error;
  EXPECT_FALSE(run(p, error));
  EXPECT_NE(error.find("disallowed global 'builtins.eval' in pickle test.pkl"),
            std::string::npos)
      << error;
}

TEST(TorchPickle, RejectsGlobalsOutsideTheAllowList) {
  for (auto [module, name] :
       std::vector<std::pair<std::string, std::string>>{
           {"torch", "load"},
           {"torch", "UntypedStorage"},
           {"torch._utils", "_rebuild_device_tensor_from_numpy"},
           {"collections", "defaultdict"},
           {"torch.HalfStorage", ""},
           {"", "OrderedDict"}}) {
    std::string error;
    EXPECT_FALSE(run("\x80\x02" + global(module, name) + ".", error));
    EXPECT_NE(error.find("disallowed global '" + module + "." + name + "'"),
              std::string::npos)
        << error;
  }
}

TEST(TorchPickle, AllowedGlobalsAreNotCallableAtWill) {
  std::string error;
  // A storage class is only a persistent-id tag.
  EXPECT_FALSE(run("\x80\x02" + global("torch", "HalfStorage") + ")R.", error));
  EXPECT_NE(error.find("'torch.HalfStorage' cannot be called"),
            std::string::npos)
      << error;
  // REDUCE of something that is not a global.
  EXPECT_FALSE(run("\x80\x02" + str("os") + ")R.", error));
  EXPECT_NE(error.find("REDUCE calls a str"), std::string::npos) << error;
  // _rebuild_tensor_v2 with a string for a storage.
  EXPECT_FALSE(run("\x80\x02" + global("torch._utils", "_rebuild_tensor_v2") +
                       "(" + str("s") + "K\x00)))\x89}tR."s,
                   error));
  EXPECT_NE(error.find("argument 1 is a str, not a storage"),
            std::string::npos)
      << error;
}

TEST(TorchPickle, RejectsBadPersistentIds) {
  auto pid = [](const std::string &key, const std::string &cls) {
    return "\x80\x02}(" + str("w") + "((" + str("storage") + cls + str(key) +
           str("cpu") + "K\x04tQu.";
  };
  std::string error;
  EXPECT_FALSE(run(pid("../0", global("torch", "FloatStorage")), error));
  EXPECT_NE(error.find("invalid storage key"), std::string::npos) << error;
  EXPECT_FALSE(run(pid("0", str("FloatStorage")), error));
  EXPECT_NE(error.find("not a storage class"), std::string::npos) << error;
  EXPECT_FALSE(run(pid("0", global("collections", "OrderedDict")), error));
  EXPECT_NE(error.find("'collections.OrderedDict', not a storage class"),
            std::string::npos)
      << error;
}

TEST(TorchPickle, RejectsNonTensorValues) {
  std::string error;
  EXPECT_FALSE(run(dict({{"w", "K\x01"}}), error));
  EXPECT_EQ(error, "entry 'w' of pickle test.pkl is an int, not a tensor");
  EXPECT_FALSE(run("\x80\x02]q\x00."s, error));
  EXPECT_EQ(error, "pickle test.pkl holds a list, not a dict of tensors");
}

TEST(TorchPickle, RejectsUnknownOpcodes) {
  std::string error;
  // INT (protocol 0 text integer) is not among torch.save's opcodes.
  EXPECT_FALSE(run("\x80\x02}I1\n.", error));
  EXPECT_EQ(error,
            "unsupported pickle opcode 0x49 ('I') in pickle test.pkl (offset 3)");
  EXPECT_FALSE(run("\x80\x02\xff.", error));
  EXPECT_EQ(error, "unsupported pickle opcode 0xff in pickle test.pkl (offset 2)");
  // Python 2 era protocols.
  EXPECT_FALSE(run("\x80\x01}.", error));
  EXPECT_NE(error.find("pickle protocol 1 is not supported"),
            std::string::npos);
}

TEST(TorchPickle, EveryTruncationIsAnError) {
  std::string p = weightPickle();
  for (size_t n = 0; n < p.size(); ++n) {
    std::string error;
    EXPECT_FALSE(run(p.substr(0, n), error)) << "prefix of " << n;
    EXPECT_NE(error.find("in pickle test.pkl"), std::string::npos) << error;
  }
}

TEST(TorchPickle, HugeLengthFields) {
  std::string error;
  EXPECT_FALSE(run("\x80\x02X\xff\xff\xff\xff" "abc.", error));
  EXPECT_NE(error.find("truncated pickle: string of 4294967295 bytes"),
            std::string::npos)
      << error;
  EXPECT_FALSE(run(std::string("\x80\x04\x8d") + le(~uint64_t(0), 8) + "ab.",
                   error));
  EXPECT_NE(error.find("truncated pickle"), std::string::npos) << error;
  // A frame longer than the data is only a hint; the data still ends.
  EXPECT_FALSE(run(std::string("\x80\x04\x95") + le(~uint64_t(0), 8) + "}",
                   error));
  EXPECT_NE(error.find("no STOP"), std::string::npos) << error;
  EXPECT_FALSE(run("\x80\x02\x8a\xff" + std::string(255, '\x01') + ".",
                   error));
  EXPECT_NE(error.find("integer of 255 bytes is too large"),
            std::string::npos)
      << error;
  EXPECT_FALSE(run("\x80\x02j\xff\xff\xff\xff.", error));
  EXPECT_NE(error.find("memo entry 4294967295 is read before it is written"),
            std::string::npos)
      << error;
}

TEST(TorchPickle, StackDisciplineIsEnforced) {
  std::string error;
  // Nothing below a MARK can be popped.
  EXPECT_FALSE(run("\x80\x02}(0.", error));
  EXPECT_NE(error.find("stack underflow"), std::string::npos) << error;
  EXPECT_FALSE(run("\x80\x02s.", error));
  EXPECT_NE(error.find("stack underflow"), std::string::npos) << error;
  EXPECT_FALSE(run("\x80\x02t.", error));
  EXPECT_NE(error.find("needs a MARK"), std::string::npos) << error;
  EXPECT_FALSE(run("\x80\x02}}.", error));
  EXPECT_NE(error.find("stops with 2 objects"), std::string::npos) << error;
  EXPECT_FALSE(run("\x80\x02K\x01K\x02s.", error));
  EXPECT_NE(error.find("stack underflow"), std::string::npos) << error;
  EXPECT_FALSE(run("\x80\x02]K\x01K\x02s.", error));
  EXPECT_NE(error.find("SETITEM(S) on a list"), std::string::npos) << error;
}

TEST(TorchPickle, CyclesAndDeepNestingDoNotCrash) {
  std::string error;
  // d = {}; d['a'] = d
  EXPECT_FALSE(run("\x80\x02}q\x00X\x01\x00\x00\x00" "ah\x00s."s, error));
  EXPECT_NE(error.find("is a dict, not a tensor"), std::string::npos) << error;
  // 200000 nested 1-tuples: nothing recurses.
  std::string deep = "\x80\x02)";
  for (int i = 0; i < 200000; ++i)
    deep += "\x85";
  EXPECT_FALSE(run(deep + ".", error));
  EXPECT_NE(error.find("holds a tuple"), std::string::npos) << error;
  // The stack is capped.
  std::string wide = "\x80\x02" + std::string((1 << 20) + 1, 'N') + ".";
  EXPECT_FALSE(run(wide, error));
  EXPECT_NE(error.find("stack exceeds"), std::string::npos) << error;
}

} // namespace

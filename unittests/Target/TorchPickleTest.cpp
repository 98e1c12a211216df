//===- TorchPickleTest.cpp - The restricted torch.save unpickler ----------===//

#include "spyre/Target/Pt2/TorchPickle.h"
#include "PickleBytes.h"

#include <gtest/gtest.h>

using namespace spyre;
using namespace spyre::test;
using namespace std::string_literals;

namespace {

/// Unpickles `p`; on failure returns nullopt and leaves the message in
/// `error`.
std::optional<std::map<std::string, PickledTensor>> run(const std::string &p,
                                                        std::string &error) {
  return unpickleTensorDict(p, "test.pkl", error);
}

std::string weightPickle() {
  return dict({{"fc.weight",
                parameter(tensor("FloatStorage", "0", 12, 0, {3, 4}, {4, 1}))},
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
  std::string body = shortStr("collections") + shortStr("OrderedDict") +
                     "\x93\x94" + ")R\x94" + shortStr("t") +
                     shortStr("torch._utils") + shortStr("_rebuild_tensor_v2") +
                     "\x93" + "((" + shortStr("storage") + shortStr("torch") +
                     shortStr("BFloat16Storage") + "\x93" + shortStr("k_1") +
                     shortStr("cpu") + "\x8a\x02\x00\x01"s /* 256 */ +
                     "t\x94Q" + "K\x00"s + "(\x8a\x01\x10t" + "(K\x01t" +
                     "\x89" + "h\x00)R"s + "}" + "tRNb" + "s.";
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
  for (auto [module, name] : std::vector<std::pair<std::string, std::string>>{
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
  EXPECT_NE(error.find("argument 1 is a str, not a storage"), std::string::npos)
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
  EXPECT_EQ(
      error,
      "unsupported pickle opcode 0x49 ('I') in pickle test.pkl (offset 3)");
  EXPECT_FALSE(run("\x80\x02\xff.", error));
  EXPECT_EQ(error,
            "unsupported pickle opcode 0xff in pickle test.pkl (offset 2)");
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
  EXPECT_FALSE(run("\x80\x02X\xff\xff\xff\xff"
                   "abc.",
                   error));
  EXPECT_NE(error.find("truncated pickle: string of 4294967295 bytes"),
            std::string::npos)
      << error;
  EXPECT_FALSE(
      run(std::string("\x80\x04\x8d") + le(~uint64_t(0), 8) + "ab.", error));
  EXPECT_NE(error.find("truncated pickle"), std::string::npos) << error;
  // A frame longer than the data is only a hint; the data still ends.
  EXPECT_FALSE(
      run(std::string("\x80\x04\x95") + le(~uint64_t(0), 8) + "}", error));
  EXPECT_NE(error.find("no STOP"), std::string::npos) << error;
  EXPECT_FALSE(run("\x80\x02\x8a\xff" + std::string(255, '\x01') + ".", error));
  EXPECT_NE(error.find("integer of 255 bytes is too large"), std::string::npos)
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
  EXPECT_FALSE(run("\x80\x02}q\x00X\x01\x00\x00\x00"
                   "ah\x00s."s,
                   error));
  EXPECT_NE(error.find("is a dict, not a tensor"), std::string::npos) << error;
  // 200000 nested 1-tuples (each padded with DUP, POP to stay within the
  // objects its length allows): nothing recurses.
  std::string deep = "\x80\x02)";
  for (int i = 0; i < 200000; ++i)
    deep += "\x85"
            "20";
  EXPECT_FALSE(run(deep + ".", error));
  EXPECT_NE(error.find("holds a tuple"), std::string::npos) << error;
}

/// A tensor rebuild as in PickleBytes.h's tensor(), with the persistent id
/// and the trailing arguments given as pickle bytes.
std::string rebuild(const std::string &pid, const std::string &offset,
                    const std::string &rest) {
  return global("torch._utils", "_rebuild_tensor_v2") + "(" + pid + "Q" +
         offset + rest + "tR";
}
std::string pid(const std::string &location, const std::string &numel) {
  return "(" + str("storage") + global("torch", "FloatStorage") + str("0") +
         location + numel + "t";
}
const std::string kP2 = "\x80\x02"; // PROTO 2
const std::string kGoodPid = pid(str("cpu"), integer(12));
const std::string kShape = tuple({3, 4}) + tuple({4, 1});
const std::string kFlags = "\x89" + global("collections", "OrderedDict") + ")R";

/// One message of TorchPickle.cpp and a pickle that produces it.
struct Rejection {
  std::string pickle, message;
};

// Every rejection the reader can make, each shown by a pickle (the caps on
// objects, memo, stack and MARKs: below).
TEST(TorchPickle, EveryRejectionHasItsMessage) {
  const std::vector<Rejection> cases = {
      // Reading the opcode stream.
      {"\x80", "truncated pickle: opcode needs 1 more bytes, 0 remain"},
      {kP2 + "cfoo", "truncated pickle: GLOBAL argument has no newline"},
      {kP2 + "cfoo\nbar", "truncated pickle: GLOBAL argument has no newline"},
      {kP2 + "\x8c" + le(5, 1) + "ab.",
       "truncated pickle: string of 5 bytes, 3 remain"},
      {"\x80\x02}", "truncated pickle: no STOP opcode"},
      {"\x80\x06}.", "pickle protocol 6 is not supported (2 to 5 are)"},
      {"\x80\x02\x8a\x09" + std::string(9, '\0') + ".",
       "integer of 9 bytes is too large"},
      {"\x80\x02I1\n.", "unsupported pickle opcode 0x49 ('I')"},
      // Stack, marks, memo.
      {kP2 + "0.", "pickle stack underflow"},
      {kP2 + "2.", "pickle stack underflow"},
      {kP2 + "e.", "pickle opcode needs a MARK and there is none"},
      {kP2 + "1.", "pickle opcode needs a MARK and there is none"},
      {"\x80\x02}(.", "pickle stops with 1 objects on the stack and 1 open "
                      "MARKs"},
      {"\x80\x02h\x07.", "pickle memo entry 7 is read before it is written"},
      // Containers.
      {"\x80\x02}(K\x01u.", "SETITEMS with an odd number of objects"},
      {kP2 + "(" + integer(1) + "d.", "DICT with an odd number of objects"},
      {"\x80\x02]K\x01K\x02s.", "SETITEM(S) on a list, not a dict"},
      {kP2 + "}" + integer(1) + "a.", "APPEND(S) on a dict, not a list"},
      {kP2 + ")(" + integer(1) + "e.", "APPEND(S) on a tuple, not a list"},
      {kP2 + "]" + integer(1) + "b.", "BUILD on a list"},
      // Globals and REDUCE.
      {"\x80\x02" + global("os", "system") + ".",
       "disallowed global 'os.system'"},
      {"\x80\x04K\x01K\x02\x93.", "STACK_GLOBAL operands are not strings"},
      {"\x80\x04" + shortStr("torch") + "K\x02\x93.",
       "STACK_GLOBAL operands are not strings"},
      {"\x80\x02K\x01)R.", "REDUCE calls an int, not an allowed global"},
      {"\x80\x02" + global("collections", "OrderedDict") + "]R.",
       "REDUCE arguments of 'collections.OrderedDict' are a list, not a "
       "tuple"},
      {"\x80\x02" + global("collections", "OrderedDict") + "(]" + integer(1) +
           "atR.",
       "OrderedDict argument is not a sequence of pairs"},
      {"\x80\x02" + global("collections", "OrderedDict") +
           "K\x01\x85\x85\x85R.",
       "OrderedDict argument is not a sequence of pairs"},
      {"\x80\x02" + global("collections", "OrderedDict") + "(K\x01K\x02tR.",
       "OrderedDict called with 2 arguments"},
      {"\x80\x02" + global("torch", "HalfStorage") + ")R.",
       "global 'torch.HalfStorage' cannot be called"},
      {"\x80\x02" + global("torch._utils", "_rebuild_parameter") +
           "(K\x01\x88}tR.",
       "'torch._utils._rebuild_parameter' expects a tensor and 2 more "
       "arguments"},
      {"\x80\x02" + global("torch._utils", "_rebuild_parameter") + "(" +
           rebuild(kGoodPid, integer(0), kShape + kFlags) + "\x88tR.",
       "'torch._utils._rebuild_parameter' expects a tensor and 2 more "
       "arguments"},
      {"\x80\x02" + global("torch._utils", "_rebuild_parameter_with_state") +
           "(" + rebuild(kGoodPid, integer(0), kShape + kFlags) + "\x88}tR.",
       "'torch._utils._rebuild_parameter_with_state' expects a tensor and 3 "
       "more arguments"},
      // _rebuild_tensor_v2.
      {"\x80\x02" + global("torch._utils", "_rebuild_tensor_v2") +
           "(K\x01K\x02tR.",
       "torch._utils._rebuild_tensor_v2 called with 2 arguments (expected 6 "
       "or 7)"},
      {"\x80\x02" + global("torch._utils", "_rebuild_tensor_v2") + "(" +
           str("s") + "K\x00)))\x89}tR."s,
       "torch._utils._rebuild_tensor_v2: argument 1 is a str, not a storage"},
      {"\x80\x02" + rebuild(kGoodPid, str("0"), kShape + kFlags) + ".",
       "torch._utils._rebuild_tensor_v2: storage offset is not an int >= 0"},
      {"\x80\x02" + rebuild(kGoodPid, integer(-1), kShape + kFlags) + ".",
       "torch._utils._rebuild_tensor_v2: storage offset is not an int >= 0"},
      {"\x80\x02" +
           rebuild(kGoodPid, integer(0), tuple({3, 4}) + tuple({4}) + kFlags) +
           ".",
       "torch._utils._rebuild_tensor_v2: sizes and strides are not tuples of "
       "one rank"},
      {"\x80\x02" + rebuild(kGoodPid, integer(0), "]" + tuple({}) + kFlags) +
           ".",
       "torch._utils._rebuild_tensor_v2: sizes and strides are not tuples of "
       "one rank"},
      {"\x80\x02" +
           rebuild(kGoodPid, integer(0),
                   tuple(std::vector<int64_t>(65, 1)) +
                       tuple(std::vector<int64_t>(65, 1)) + kFlags) +
           ".",
       "torch._utils._rebuild_tensor_v2: sizes and strides are not tuples of "
       "one rank"},
      {"\x80\x02" + rebuild(kGoodPid, integer(0), kShape + "K\x01}") + ".",
       "torch._utils._rebuild_tensor_v2: requires_grad, hooks or metadata of "
       "the wrong type"},
      {"\x80\x02" + rebuild(kGoodPid, integer(0), kShape + "\x89]") + ".",
       "torch._utils._rebuild_tensor_v2: requires_grad, hooks or metadata of "
       "the wrong type"},
      {"\x80\x02" + rebuild(kGoodPid, integer(0), kShape + kFlags + "N") + ".",
       "torch._utils._rebuild_tensor_v2: requires_grad, hooks or metadata of "
       "the wrong type"},
      {"\x80\x02" +
           rebuild(kGoodPid, integer(0),
                   tuple({3, -4}) + tuple({4, 1}) + kFlags) +
           ".",
       "torch._utils._rebuild_tensor_v2: size or stride 1 is not an int >= 0"},
      {"\x80\x02" +
           rebuild(kGoodPid, integer(0),
                   "(" + integer(3) + "G" + std::string(8, '\0') + "t" +
                       tuple({4, 1}) + kFlags) +
           ".",
       "torch._utils._rebuild_tensor_v2: size or stride 1 is not an int >= 0"},
      {"\x80\x02" +
           rebuild(kGoodPid, integer(0),
                   tuple({3, 4}) + tuple({-4, 1}) + kFlags) +
           ".",
       "torch._utils._rebuild_tensor_v2: size or stride 0 is not an int >= 0"},
      // Persistent ids.
      {"\x80\x02K\x01Q.", "persistent id is not a ('storage', ...) tuple of 5"},
      {"\x80\x02(" + str("storage") + "K\x01K\x02K\x03tQ.",
       "persistent id is not a ('storage', ...) tuple of 5"},
      {"\x80\x02(" + str("module") + global("torch", "FloatStorage") +
           str("0") + str("cpu") + "K\x04tQ.",
       "persistent id is not a ('storage', ...) tuple of 5"},
      {"\x80\x02(" + str("storage") + str("FloatStorage") + str("0") +
           str("cpu") + "K\x04tQ.",
       "persistent id names a str, not a storage class"},
      {"\x80\x02(" + str("storage") + global("torch", "FloatStorage") +
           str("a/b") + str("cpu") + "K\x04tQ.",
       "persistent id has an invalid storage key"},
      {"\x80\x02" + pid("K\x01", integer(12)) + "Q.",
       "persistent id location is not a string"},
      {"\x80\x02" + pid(str("cpu"), integer(-1)) + "Q.",
       "persistent id element count is not an int >= 0"},
      {"\x80\x02" + pid(str("cpu"), str("12")) + "Q.",
       "persistent id element count is not an int >= 0"},
      // The result.
      {"\x80\x02K\x01.", "pickle test.pkl holds an int, not a dict of tensors"},
      {"\x80\x02}K\x01K\x02s.",
       "pickle test.pkl has an int key; tensor names are strings"},
      {dict({{"w", "N"}}),
       "entry 'w' of pickle test.pkl is None, not a tensor"},
  };
  for (const Rejection &c : cases) {
    std::string error;
    EXPECT_FALSE(run(c.pickle, error)) << c.message;
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "expected: " << c.message << "\n     got: " << error;
  }
}

TEST(TorchPickle, CapsFollowThePickleLength) {
  // Most opcodes take one byte and may make an object; a pickle may make
  // one object per two of its bytes (torch.save makes one per 3 to 7), so
  // memory stays proportional to the input: an 8 MB pickle cannot make the
  // millions of objects its opcodes could.
  std::string error;
  EXPECT_FALSE(run("\x80\x02" + std::string(1000, ']') + ".", error));
  EXPECT_EQ(error, "pickle creates more than 517 objects (the most its 1003 "
                   "bytes may make) in pickle test.pkl (offset 519)");
  // None, True, False and () are shared, not made per opcode.
  std::string shared = "\x80\x02]";
  for (int i = 0; i < 1000; ++i)
    shared += "Na\x88" + std::string("a\x89") +
              "a)a"; // list.append(None), True, False, ()
  EXPECT_FALSE(run(shared + ".", error));
  EXPECT_EQ(error, "pickle test.pkl holds a list, not a dict of tensors");
  // The memo, likewise (MEMOIZE is one byte).
  EXPECT_FALSE(run("\x80\x04N" + std::string(1000, '\x94') + ".", error));
  EXPECT_EQ(error, "pickle memo exceeds 518 entries in pickle test.pkl "
                   "(offset 521)");
  // A real state dict is well within both.
  std::string dictOfMany = "\x80\x02}(";
  for (int i = 0; i < 2000; ++i)
    dictOfMany += shortStr(std::to_string(i)) +
                  tensor("FloatStorage", std::to_string(i), 1, 0, {1}, {1});
  auto many = run(dictOfMany + "u.", error);
  ASSERT_TRUE(many) << error;
  EXPECT_EQ(many->size(), 2000u);
}

TEST(TorchPickle, FixedCapsOfStackAndMarks) {
  std::string error;
  EXPECT_FALSE(run("\x80\x02" + std::string((1 << 20) + 1, '(') + ".", error));
  EXPECT_NE(error.find("too many open MARKs"), std::string::npos) << error;
  EXPECT_FALSE(run("\x80\x02" + std::string((1 << 20) + 1, 'N') + ".", error));
  EXPECT_NE(error.find("pickle stack exceeds 1048576 entries"),
            std::string::npos)
      << error;
}

} // namespace

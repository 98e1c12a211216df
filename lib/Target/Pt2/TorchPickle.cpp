//===- TorchPickle.cpp - Restricted reader of torch.save pickles ----------===//
//
// A pickle machine reduced to what torch.save's data.pkl needs (opcode
// reference: Python's Lib/pickletools.py). Objects live in one arena and
// refer to each other by pointer, so memo aliasing and self-references are
// harmless and nothing is freed recursively. Every read is bounds-checked
// and the stack, memo and arena are capped; the arena's cap follows the
// pickle's length, so memory stays proportional to the input.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Pt2/TorchPickle.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iterator>
#include <unordered_map>

namespace spyre {

namespace {

/// Caps that keep a hostile pickle from exhausting memory. A state dict
/// needs about 20 objects per tensor, one per 3 to 7 bytes of pickle
/// (torch.save, protocols 2 and 4); one object (and memo entry) per two
/// bytes is allowed. Most opcodes are one byte, so without that cap an
/// 8 MB pickle could make 8 million objects.
constexpr size_t kMaxStack = size_t(1) << 20;
constexpr size_t kMaxMemo = size_t(1) << 20;
constexpr size_t kMaxObjects = size_t(1) << 22;
constexpr size_t kBytesPerObject = 2;
/// Elements of all lists, tuples and dicts together. Every element is an
/// opcode's push except in OrderedDict([(k, v), ...]), which copies its
/// pairs once: four elements per byte cover that. REDUCE copying one big
/// list again and again is what this bounds (without it a 2 MB pickle asked
/// for 32 GB).
constexpr size_t kElementsPerByte = 4;
constexpr size_t kMaxElements = size_t(1) << 26;
constexpr size_t kMaxRank = 64;

/// The typed storage classes a persistent id may name (`torch.HalfStorage`
/// ...), with the ScalarType code and element size of their elements.
struct StorageClass {
  const char *name;
  int64_t dtype;
  int64_t bytes;
};
constexpr StorageClass kStorageClasses[] = {
    {"ByteStorage", 1, 1},      {"CharStorage", 2, 1},   {"ShortStorage", 3, 2},
    {"IntStorage", 4, 4},       {"LongStorage", 5, 8},   {"HalfStorage", 6, 2},
    {"FloatStorage", 7, 4},     {"DoubleStorage", 8, 8}, {"BoolStorage", 12, 1},
    {"BFloat16Storage", 13, 2},
};

/// The allow-listed globals. They are never called: REDUCE interprets them.
enum class Global : uint8_t {
  OrderedDict,
  RebuildTensorV2,
  RebuildParameter,
  RebuildParameterWithState,
  Storage,
};

/// One object of the pickle: 16 bytes. What varies in size (text,
/// elements, tensor views) lives in the machine's pools, only for the
/// kinds that have it.
struct Object {
  enum Kind : uint8_t {
    None,
    Bool,
    Int,
    Float,
    String,
    Tuple,
    List,
    Dict,
    Callable,
    Storage,
    Tensor
  };
  Kind kind = None;
  /// Callable: which allowed global.
  Global global = Global::OrderedDict;
  /// Index into the pool of the kind: strings (String; Callable:
  /// "module.name"), sequences (Tuple, List; Dict: key, value, ...) or
  /// tensors (Storage: key, dtype, numel; Tensor: the whole view).
  uint32_t ref = 0;
  union {
    /// Bool, Int; Callable of a storage class: its index in
    /// kStorageClasses.
    int64_t i = 0;
    double f;
  };
};
static_assert(sizeof(Object) == 16, "keep objects small: see kBytesPerObject");

/// Each kind with its article, for messages, in the order of Object::Kind
/// (a table rather than a switch of one constant per kind).
constexpr const char *kKindNames[] = {
    "None",   "a bool", "an int",   "a float",   "a str",    "a tuple",
    "a list", "a dict", "a global", "a storage", "a tensor",
};
static_assert(std::size(kKindNames) == size_t(Object::Tensor) + 1,
              "one name per Object::Kind");

/// A kind with its article, for messages ("an int").
const char *kindName(Object::Kind k) {
  return size_t(k) < std::size(kKindNames) ? kKindNames[k] : "an object";
}

/// Storage keys become zip entry names (`data/<key>`): keep them plain.
bool plainKey(const std::string &key) {
  if (key.empty() || key.size() > 64)
    return false;
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

class Machine {
public:
  Machine(std::string_view data, const std::string &what, std::string &error)
      : data(data), what(what), error(error),
        maxObjects(std::min(kMaxObjects, data.size() / kBytesPerObject + 16)),
        maxMemo(std::min(kMaxMemo, maxObjects)),
        maxElements(
            std::min(kMaxElements, data.size() * kElementsPerByte + 1024)) {}

  /// Runs to STOP; the result, or null with `error` set.
  Object *run();

  std::string &text(Object *o) { return strings[o->ref]; }
  std::vector<Object *> &items(Object *o) { return sequences[o->ref]; }
  PickledTensor &tensor(Object *o) { return tensors[o->ref]; }

private:
  std::string_view data;
  const std::string &what;
  std::string &error;
  /// kMaxObjects and kMaxMemo, or less for a short pickle.
  size_t maxObjects, maxMemo;
  /// kMaxElements, or less for a short pickle; `elementCount` counts them.
  size_t maxElements, elementCount = 0;
  size_t pos = 0;
  /// Offset of the opcode being interpreted, for messages.
  size_t opOffset = 0;
  /// Objects (a deque: they never move) and the pools they index.
  std::deque<Object> arena;
  std::deque<std::string> strings;
  std::deque<std::vector<Object *>> sequences;
  std::deque<PickledTensor> tensors;
  /// Immutable objects that opcodes of one byte would otherwise create
  /// afresh: None, False, True, ().
  Object *none = nullptr, *falseObject = nullptr, *trueObject = nullptr,
         *emptyTuple = nullptr;
  std::vector<Object *> stack;
  /// Stack heights at each open MARK: objects below the innermost one are
  /// out of reach, as in Python's unpickler.
  std::vector<size_t> marks;
  std::unordered_map<uint64_t, Object *> memo;

  bool fail(const std::string &message) {
    error = message + " in pickle " + what + " (offset " +
            std::to_string(opOffset) + ")";
    return false;
  }

  //===--- Reading the opcode stream -------------------------------------===//

  bool bytes(size_t n, const char *&out) {
    if (n > data.size() - pos)
      return fail("truncated pickle: opcode needs " + std::to_string(n) +
                  " more bytes, " + std::to_string(data.size() - pos) +
                  " remain");
    out = data.data() + pos;
    pos += n;
    return true;
  }
  /// A little-endian unsigned integer of `n` bytes.
  bool le(size_t n, uint64_t &out) {
    const char *p;
    if (!bytes(n, p))
      return false;
    out = 0;
    for (size_t k = 0; k < n; ++k)
      out |= uint64_t(uint8_t(p[k])) << (8 * k);
    return true;
  }
  /// A newline-terminated line (GLOBAL's module and name).
  bool line(std::string &out) {
    size_t end = data.find('\n', pos);
    if (end == std::string_view::npos)
      return fail("truncated pickle: GLOBAL argument has no newline");
    out.assign(data.data() + pos, end - pos);
    pos = end + 1;
    return true;
  }

  //===--- Objects and the stack -----------------------------------------===//

  /// A new object, with its entry in the pool of its kind.
  Object *make(Object::Kind kind) {
    if (arena.size() >= maxObjects) {
      fail("pickle creates more than " + std::to_string(maxObjects) +
           " objects (the most its " + std::to_string(data.size()) +
           " bytes may make)");
      return nullptr;
    }
    Object &o = arena.emplace_back();
    o.kind = kind;
    switch (kind) {
    case Object::String:
    case Object::Callable:
      o.ref = uint32_t(strings.size());
      strings.emplace_back();
      break;
    case Object::Tuple:
    case Object::List:
    case Object::Dict:
      o.ref = uint32_t(sequences.size());
      sequences.emplace_back();
      break;
    case Object::Storage:
    case Object::Tensor:
      o.ref = uint32_t(tensors.size());
      tensors.emplace_back();
      break;
    default:
      break;
    }
    return &o;
  }
  /// The shared immutable object `slot`, made at its first use.
  Object *shared(Object *&slot, Object::Kind kind, int64_t value = 0) {
    if (!slot && (slot = make(kind)))
      slot->i = value;
    return slot;
  }
  size_t floor() const { return marks.empty() ? 0 : marks.back(); }
  bool push(Object *o) {
    if (!o)
      return false;
    if (stack.size() >= kMaxStack)
      return fail("pickle stack exceeds " + std::to_string(kMaxStack) +
                  " entries");
    stack.push_back(o);
    return true;
  }
  bool pop(Object *&out) {
    if (stack.size() <= floor())
      return fail("pickle stack underflow");
    out = stack.back();
    stack.pop_back();
    return true;
  }
  bool top(Object *&out) {
    if (stack.size() <= floor())
      return fail("pickle stack underflow");
    out = stack.back();
    return true;
  }
  /// Pops everything above the innermost MARK, and the MARK.
  bool popMark(std::vector<Object *> &out) {
    if (marks.empty())
      return fail("pickle opcode needs a MARK and there is none");
    out.assign(stack.begin() + long(marks.back()), stack.end());
    stack.resize(marks.back());
    marks.pop_back();
    return true;
  }
  /// Accounts for `n` more sequence elements.
  bool grow(size_t n) {
    if (n > maxElements - elementCount)
      return fail("pickle's lists, tuples and dicts hold more than " +
                  std::to_string(maxElements) + " elements (the most its " +
                  std::to_string(data.size()) + " bytes may make)");
    elementCount += n;
    return true;
  }
  bool sequence(Object::Kind kind, std::vector<Object *> elements) {
    Object *o = make(kind);
    if (!o || !grow(elements.size()))
      return false;
    items(o) = std::move(elements);
    return push(o);
  }
  bool integer(int64_t v) {
    Object *o = make(Object::Int);
    if (o)
      o->i = v;
    return push(o);
  }
  bool string(size_t lengthBytes) {
    uint64_t n;
    const char *p;
    if (!le(lengthBytes, n))
      return false;
    if (n > data.size() - pos)
      return fail("truncated pickle: string of " + std::to_string(n) +
                  " bytes, " + std::to_string(data.size() - pos) + " remain");
    if (!bytes(size_t(n), p))
      return false;
    Object *o = make(Object::String);
    if (o)
      text(o).assign(p, n);
    return push(o);
  }
  bool memoPut(uint64_t index) {
    Object *o = nullptr;
    if (!top(o))
      return false;
    if (memo.size() >= maxMemo && !memo.count(index))
      return fail("pickle memo exceeds " + std::to_string(maxMemo) +
                  " entries");
    memo[index] = o;
    return true;
  }
  bool memoGet(uint64_t index) {
    auto it = memo.find(index);
    if (it == memo.end())
      return fail("pickle memo entry " + std::to_string(index) +
                  " is read before it is written");
    return push(it->second);
  }
  bool setItems(const std::vector<Object *> &pairs) {
    Object *dict = nullptr;
    if (!top(dict))
      return false;
    if (dict->kind != Object::Dict)
      return fail(std::string("SETITEM(S) on ") + kindName(dict->kind) +
                  ", not a dict");
    if (pairs.size() % 2)
      return fail("SETITEMS with an odd number of objects");
    if (!grow(pairs.size()))
      return false;
    items(dict).insert(items(dict).end(), pairs.begin(), pairs.end());
    return true;
  }
  bool append(const std::vector<Object *> &elements) {
    Object *list = nullptr;
    if (!top(list))
      return false;
    if (list->kind != Object::List)
      return fail(std::string("APPEND(S) on ") + kindName(list->kind) +
                  ", not a list");
    if (!grow(elements.size()))
      return false;
    items(list).insert(items(list).end(), elements.begin(), elements.end());
    return true;
  }

  //===--- Globals, REDUCE, persistent ids -------------------------------===//

  bool global(const std::string &module, const std::string &name);
  bool reduce();
  bool makeOrderedDict(const std::vector<Object *> &args);
  bool copyPairs(Object *dict, const std::vector<Object *> &pairs);
  bool rebuildParameter(Object *fn, const std::vector<Object *> &args);
  bool rebuildTensor(const std::vector<Object *> &args);
  bool checkRebuildTensorArgs(const std::vector<Object *> &args);
  bool isShapePair(Object *sizes, Object *strides);
  static bool hasFlagTypes(const std::vector<Object *> &args);
  bool appendDims(PickledTensor &view, const std::vector<Object *> &sizes,
                  const std::vector<Object *> &strides);
  bool persistentId();
  bool isStorageId(Object *pid);
  bool checkStorageIdFields(const std::vector<Object *> &fields);
  std::string describeStorageClassArg(Object *o);
};

bool Machine::global(const std::string &module, const std::string &name) {
  // Checked when the global is named, before anything uses it.
  std::string full = module + "." + name;
  std::optional<Global> which;
  int64_t storage = -1;
  if (full == "collections.OrderedDict")
    which = Global::OrderedDict;
  else if (full == "torch._utils._rebuild_tensor_v2")
    which = Global::RebuildTensorV2;
  else if (full == "torch._utils._rebuild_parameter")
    which = Global::RebuildParameter;
  else if (full == "torch._utils._rebuild_parameter_with_state")
    which = Global::RebuildParameterWithState;
  else if (module == "torch")
    for (const StorageClass &c : kStorageClasses)
      if (name == c.name) {
        which = Global::Storage;
        storage = &c - kStorageClasses;
      }
  if (!which)
    return fail("disallowed global '" + full + "'");
  Object *o = make(Object::Callable);
  if (o) {
    text(o) = full;
    o->global = *which;
    o->i = storage;
  }
  return push(o);
}

bool Machine::reduce() {
  Object *args = nullptr, *fn = nullptr;
  if (!pop(args) || !pop(fn))
    return false;
  if (fn->kind != Object::Callable)
    return fail(std::string("REDUCE calls ") + kindName(fn->kind) +
                ", not an allowed global");
  if (args->kind != Object::Tuple)
    return fail("REDUCE arguments of '" + text(fn) + "' are " +
                kindName(args->kind) + ", not a tuple");
  const std::vector<Object *> &a = items(args);
  switch (fn->global) {
  case Global::OrderedDict:
    return makeOrderedDict(a);
  case Global::RebuildTensorV2:
    return rebuildTensor(a);
  case Global::RebuildParameter:
  case Global::RebuildParameterWithState:
    return rebuildParameter(fn, a);
  case Global::Storage: // Only a tag of persistent ids.
    break;
  }
  return fail("global '" + text(fn) + "' cannot be called");
}

bool Machine::makeOrderedDict(const std::vector<Object *> &a) {
  // OrderedDict() then SETITEMS is what pickle writes; accept the
  // OrderedDict([(k, v), ...]) form too.
  Object *dict = make(Object::Dict);
  if (!dict)
    return false;
  if (a.size() == 1 &&
      (a[0]->kind == Object::List || a[0]->kind == Object::Tuple)) {
    if (!copyPairs(dict, items(a[0])))
      return false;
  } else if (!a.empty()) {
    return fail("OrderedDict called with " + std::to_string(a.size()) +
                " arguments");
  }
  return push(dict);
}

/// Appends the (key, value) tuples `pairs` to `dict`'s keys and values.
bool Machine::copyPairs(Object *dict, const std::vector<Object *> &pairs) {
  if (!grow(2 * pairs.size()))
    return false;
  for (Object *pair : pairs) {
    if (pair->kind != Object::Tuple || items(pair).size() != 2)
      return fail("OrderedDict argument is not a sequence of pairs");
    items(dict).push_back(items(pair)[0]);
    items(dict).push_back(items(pair)[1]);
  }
  return true;
}

bool Machine::rebuildParameter(Object *fn, const std::vector<Object *> &a) {
  // (data, requires_grad, backward_hooks[, state]): the data is the
  // tensor; gradients, hooks and Python attributes do not matter here.
  size_t want = fn->global == Global::RebuildParameter ? 3 : 4;
  if (a.size() != want || a[0]->kind != Object::Tensor)
    return fail("'" + text(fn) + "' expects a tensor and " +
                std::to_string(want - 1) + " more arguments");
  return push(a[0]);
}

/// The global whose REDUCE rebuildTensor interprets, for messages.
constexpr const char *kRebuildTensorV2 = "torch._utils._rebuild_tensor_v2";

bool Machine::rebuildTensor(const std::vector<Object *> &a) {
  if (!checkRebuildTensorArgs(a))
    return false;
  Object *t = make(Object::Tensor);
  if (!t)
    return false;
  PickledTensor &view = tensor(t);
  view = tensor(a[0]);
  view.storageOffset = a[1]->i;
  if (!appendDims(view, items(a[2]), items(a[3])))
    return false;
  return push(t);
}

/// Checks the types of _rebuild_tensor_v2(storage, storage_offset, size,
/// stride, requires_grad, backward_hooks[, metadata]).
bool Machine::checkRebuildTensorArgs(const std::vector<Object *> &a) {
  const char *fn = kRebuildTensorV2;
  if (a.size() != 6 && a.size() != 7)
    return fail(std::string(fn) + " called with " + std::to_string(a.size()) +
                " arguments (expected 6 or 7)");
  if (a[0]->kind != Object::Storage)
    return fail(std::string(fn) + ": argument 1 is " + kindName(a[0]->kind) +
                ", not a storage");
  if (a[1]->kind != Object::Int || a[1]->i < 0)
    return fail(std::string(fn) + ": storage offset is not an int >= 0");
  if (!isShapePair(a[2], a[3]))
    return fail(std::string(fn) +
                ": sizes and strides are not tuples of one rank");
  if (!hasFlagTypes(a))
    return fail(std::string(fn) +
                ": requires_grad, hooks or metadata of the wrong type");
  return true;
}

/// Whether requires_grad is a bool and the hooks and metadata (if any)
/// are dicts.
bool Machine::hasFlagTypes(const std::vector<Object *> &a) {
  return a[4]->kind == Object::Bool && a[5]->kind == Object::Dict &&
         (a.size() != 7 || a[6]->kind == Object::Dict);
}

/// Whether `sizes` and `strides` are tuples of one rank, at most kMaxRank.
bool Machine::isShapePair(Object *sizes, Object *strides) {
  return sizes->kind == Object::Tuple && strides->kind == Object::Tuple &&
         items(sizes).size() == items(strides).size() &&
         items(sizes).size() <= kMaxRank;
}

/// Appends the dimensions to `view`, each size and stride an int >= 0.
bool Machine::appendDims(PickledTensor &view,
                         const std::vector<Object *> &sizes,
                         const std::vector<Object *> &strides) {
  for (size_t d = 0; d < sizes.size(); ++d) {
    Object *size = sizes[d], *stride = strides[d];
    if (size->kind != Object::Int || stride->kind != Object::Int ||
        size->i < 0 || stride->i < 0)
      return fail(std::string(kRebuildTensorV2) + ": size or stride " +
                  std::to_string(d) + " is not an int >= 0");
    view.sizes.push_back(size->i);
    view.strides.push_back(stride->i);
  }
  return true;
}

bool Machine::persistentId() {
  // torch.save's ids: ('storage', <storage class>, key, location, numel).
  Object *pid = nullptr;
  if (!pop(pid))
    return false;
  if (!isStorageId(pid))
    return fail("persistent id is not a ('storage', ...) tuple of 5");
  const std::vector<Object *> &a = items(pid);
  if (!checkStorageIdFields(a))
    return false;
  Object *s = make(Object::Storage);
  if (!s)
    return false;
  const StorageClass &c = kStorageClasses[a[1]->i];
  PickledTensor &storage = tensor(s);
  storage.storageKey = text(a[2]);
  storage.dtype = c.dtype;
  storage.elementBytes = c.bytes;
  storage.storageNumel = a[4]->i;
  return push(s);
}

/// Whether `pid` is a tuple of 5 that starts with 'storage'.
bool Machine::isStorageId(Object *pid) {
  return pid->kind == Object::Tuple && items(pid).size() == 5 &&
         items(pid)[0]->kind == Object::String &&
         text(items(pid)[0]) == "storage";
}

/// Checks the storage class, key, location and element count of a
/// ('storage', ...) persistent id.
bool Machine::checkStorageIdFields(const std::vector<Object *> &a) {
  if (a[1]->kind != Object::Callable || a[1]->global != Global::Storage)
    return fail("persistent id names " + describeStorageClassArg(a[1]) +
                ", not a storage class");
  if (a[2]->kind != Object::String || !plainKey(text(a[2])))
    return fail("persistent id has an invalid storage key");
  if (a[3]->kind != Object::String)
    return fail("persistent id location is not a string");
  if (a[4]->kind != Object::Int || a[4]->i < 0)
    return fail("persistent id element count is not an int >= 0");
  return true;
}

/// What a persistent id names in place of a storage class, for messages:
/// a global by its name, anything else by its kind.
std::string Machine::describeStorageClassArg(Object *o) {
  return o->kind == Object::Callable ? "'" + text(o) + "'"
                                     : std::string(kindName(o->kind));
}

Object *Machine::run() {
  for (;;) {
    opOffset = pos;
    if (pos >= data.size()) {
      fail("truncated pickle: no STOP opcode");
      return nullptr;
    }
    uint8_t op = uint8_t(data[pos++]);
    uint64_t n = 0;
    Object *a = nullptr, *b = nullptr;
    std::vector<Object *> items;
    bool ok = true;
    switch (op) {
    case 0x80: // PROTO
      ok = le(1, n);
      if (ok && (n < 2 || n > 5))
        ok = fail("pickle protocol " + std::to_string(n) +
                  " is not supported (2 to 5 are)");
      break;
    case 0x95: // FRAME: a read-ahead hint only
      ok = le(8, n);
      break;
    case '.': // STOP
      if (stack.size() != 1 || !marks.empty()) {
        fail("pickle stops with " + std::to_string(stack.size()) +
             " objects on the stack and " + std::to_string(marks.size()) +
             " open MARKs");
        return nullptr;
      }
      return stack.back();
    case '(': // MARK
      if (marks.size() >= kMaxStack)
        ok = fail("too many open MARKs");
      else
        marks.push_back(stack.size());
      break;
    case '0': // POP
      ok = pop(a);
      break;
    case '1': // POP_MARK
      ok = popMark(items);
      break;
    case '2': // DUP
      ok = top(a) && push(a);
      break;
    case 'N': // NONE
      ok = push(shared(none, Object::None));
      break;
    case 0x88: // NEWTRUE
      ok = push(shared(trueObject, Object::Bool, 1));
      break;
    case 0x89: // NEWFALSE
      ok = push(shared(falseObject, Object::Bool, 0));
      break;
    case 'J': // BININT
      ok = le(4, n) && integer(int32_t(uint32_t(n)));
      break;
    case 'K': // BININT1
      ok = le(1, n) && integer(int64_t(n));
      break;
    case 'M': // BININT2
      ok = le(2, n) && integer(int64_t(n));
      break;
    case 0x8a: { // LONG1: n bytes of little-endian two's complement
      uint64_t v = 0;
      ok = le(1, n);
      if (ok && n > 8)
        ok = fail("integer of " + std::to_string(n) + " bytes is too large");
      if (ok && n)
        ok = le(n, v);
      if (ok && n && n < 8 && ((v >> (8 * n - 1)) & 1))
        v |= ~uint64_t(0) << (8 * n); // sign-extend
      ok = ok && integer(int64_t(v));
      break;
    }
    case 'G': { // BINFLOAT: big-endian IEEE double
      const char *p;
      ok = bytes(8, p);
      if (ok) {
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k)
          bits = bits << 8 | uint8_t(p[k]);
        a = make(Object::Float);
        if (a)
          std::memcpy(&a->f, &bits, 8);
        ok = push(a);
      }
      break;
    }
    case 0x8c: // SHORT_BINUNICODE
      ok = string(1);
      break;
    case 'X': // BINUNICODE
      ok = string(4);
      break;
    case 0x8d: // BINUNICODE8
      ok = string(8);
      break;
    case '}': // EMPTY_DICT
      ok = push(make(Object::Dict));
      break;
    case ']': // EMPTY_LIST
      ok = push(make(Object::List));
      break;
    case ')': // EMPTY_TUPLE
      ok = push(shared(emptyTuple, Object::Tuple));
      break;
    case 0x85: // TUPLE1
    case 0x86: // TUPLE2
    case 0x87: // TUPLE3
      items.resize(op - 0x84);
      for (size_t k = items.size(); ok && k-- > 0;)
        ok = pop(items[k]);
      ok = ok && sequence(Object::Tuple, std::move(items));
      break;
    case 't': // TUPLE
      ok = popMark(items) && sequence(Object::Tuple, std::move(items));
      break;
    case 'l': // LIST
      ok = popMark(items) && sequence(Object::List, std::move(items));
      break;
    case 'd': // DICT
      ok = popMark(items);
      if (ok && items.size() % 2)
        ok = fail("DICT with an odd number of objects");
      ok = ok && sequence(Object::Dict, std::move(items));
      break;
    case 's': // SETITEM
      ok = pop(b) && pop(a) && setItems({a, b});
      break;
    case 'u': // SETITEMS
      ok = popMark(items) && setItems(std::move(items));
      break;
    case 'a': // APPEND
      ok = pop(a) && append({a});
      break;
    case 'e': // APPENDS
      ok = popMark(items) && append(std::move(items));
      break;
    case 'q': // BINPUT
      ok = le(1, n) && memoPut(n);
      break;
    case 'r': // LONG_BINPUT
      ok = le(4, n) && memoPut(n);
      break;
    case 0x94: // MEMOIZE
      ok = memoPut(memo.size());
      break;
    case 'h': // BINGET
      ok = le(1, n) && memoGet(n);
      break;
    case 'j': // LONG_BINGET
      ok = le(4, n) && memoGet(n);
      break;
    case 'c': { // GLOBAL "module\nname\n"
      std::string module, name;
      ok = line(module) && line(name) && global(module, name);
      break;
    }
    case 0x93: // STACK_GLOBAL: module and name from the stack
      ok = pop(b) && pop(a);
      if (ok && (a->kind != Object::String || b->kind != Object::String))
        ok = fail("STACK_GLOBAL operands are not strings");
      ok = ok && global(text(a), text(b));
      break;
    case 'R': // REDUCE
      ok = reduce();
      break;
    case 'Q': // BINPERSID
      ok = persistentId();
      break;
    case 'b': // BUILD: object state (tensor attributes); not needed
      ok = pop(b) && top(a);
      if (ok && a->kind != Object::Tensor && a->kind != Object::Dict)
        ok = fail(std::string("BUILD on ") + kindName(a->kind));
      break;
    default: {
      char text[64];
      std::snprintf(text, sizeof text, "unsupported pickle opcode 0x%02x",
                    unsigned(op));
      std::string message = text;
      if (op >= 0x20 && op < 0x7f)
        message += std::string(" ('") + char(op) + "')";
      ok = fail(message);
      break;
    }
    }
    if (!ok)
      return nullptr;
  }
}

} // namespace

std::optional<std::map<std::string, PickledTensor>>
unpickleTensorDict(std::string_view pickle, const std::string &what,
                   std::string &error) {
  Machine m(pickle, what, error);
  Object *result = m.run();
  if (!result)
    return std::nullopt;
  if (result->kind != Object::Dict) {
    error = std::string("pickle ") + what + " holds " + kindName(result->kind) +
            ", not a dict of tensors";
    return std::nullopt;
  }
  std::map<std::string, PickledTensor> out;
  const std::vector<Object *> &entries = m.items(result);
  for (size_t k = 0; k + 1 < entries.size(); k += 2) {
    Object *key = entries[k], *value = entries[k + 1];
    if (key->kind != Object::String) {
      error = std::string("pickle ") + what + " has " + kindName(key->kind) +
              " key; tensor names are strings";
      return std::nullopt;
    }
    if (value->kind != Object::Tensor) {
      error = "entry '" + m.text(key) + "' of pickle " + what + " is " +
              kindName(value->kind) + ", not a tensor";
      return std::nullopt;
    }
    out[m.text(key)] = m.tensor(value); // a repeated key replaces, as in Python
  }
  return out;
}

} // namespace spyre

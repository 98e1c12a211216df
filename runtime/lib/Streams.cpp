//===- Streams.cpp - Ordered queues of launches and transfers -------------===//

#include "spyre/Runtime/Streams.h"

#include <algorithm>
#include <cmath>

namespace spyre::rt {

struct StreamEngine::Command {
  CommandKind kind = CommandKind::Work;
  Resource resource = Resource::Device;
  std::string label;
  uint64_t bytes = 0;
  Work work;
  std::shared_ptr<Event> event;
  /// Record: this record's sequence number. Wait: the record waited for.
  uint64_t sequence = 0;
};

struct StreamEngine::StreamState {
  std::string track;
  uint64_t enqueued = 0, completed = 0;
  /// When the stream's next command may start (ps).
  uint64_t readyPs = 0;
  Status error;
};

StreamEngine::StreamEngine(SimulatorDevice &device, std::mutex &deviceLock)
    : device_(device), deviceLock_(deviceLock) {
  executor_ = std::thread([this] { run(); });
}

StreamEngine::~StreamEngine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  executor_.join();
}

uint32_t StreamEngine::createStream() {
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t id = nextStream_++;
  auto state = std::make_unique<StreamState>();
  state->track = "stream " + std::to_string(id);
  streams_.emplace(id, std::move(state));
  return id;
}

StreamEngine::StreamState *StreamEngine::find(uint32_t stream) {
  auto it = streams_.find(stream);
  return it == streams_.end() ? nullptr : it->second.get();
}

Status StreamEngine::destroyStream(uint32_t stream) {
  Status s = synchronize(stream);
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.erase(stream);
  return s;
}

Status StreamEngine::push(uint32_t stream, Command command) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    StreamState *state = find(stream);
    if (!state)
      return invalidArgument("unknown or destroyed stream");
    if (command.kind == CommandKind::Record) {
      command.sequence = nextRecord_++;
      command.event->recorded = command.sequence;
    } else if (command.kind == CommandKind::Wait) {
      command.sequence = command.event->recorded;
    }
    ++state->enqueued;
    queue_.emplace_back(stream, std::move(command));
  }
  changed_.notify_all();
  return Status::success();
}

Status StreamEngine::enqueue(uint32_t stream, Resource resource,
                             std::string label, uint64_t bytes, Work work) {
  Command c;
  c.resource = resource;
  c.label = std::move(label);
  c.bytes = bytes;
  c.work = std::move(work);
  return push(stream, std::move(c));
}

Status StreamEngine::pushEvent(uint32_t stream, CommandKind kind,
                               const std::shared_ptr<Event> &event) {
  if (!event)
    return invalidArgument("no event");
  Command c;
  c.kind = kind;
  c.event = event;
  return push(stream, std::move(c));
}

Status StreamEngine::record(uint32_t stream,
                            const std::shared_ptr<Event> &event) {
  return pushEvent(stream, CommandKind::Record, event);
}

Status StreamEngine::wait(uint32_t stream,
                          const std::shared_ptr<Event> &event) {
  return pushEvent(stream, CommandKind::Wait, event);
}

void StreamEngine::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty())
      return; // Stopping, and nothing is left.
    auto [stream, command] = std::move(queue_.front());
    queue_.pop_front();
    // Streams are destroyed only once synchronized: this one is alive.
    StreamState &state = *find(stream);
    Event *event = command.event.get();
    switch (command.kind) {
    case CommandKind::Record:
      event->timePs = state.readyPs;
      event->completed = std::max(event->completed, command.sequence);
      break;
    case CommandKind::Wait:
      // The record waited for was the event's last when the wait was
      // enqueued, so it ran before this wait and no later one has (commands
      // run in enqueue order): the event's time is that record's.
      if (command.sequence)
        state.readyPs = std::max(state.readyPs, event->timePs);
      break;
    case CommandKind::Work: {
      bool skip = !state.error.ok(); // Only this thread writes it.
      lock.unlock();
      Status s = execute(state, command, skip);
      lock.lock();
      if (!skip)
        state.error = s;
      break;
    }
    }
    ++state.completed;
    changed_.notify_all();
  }
}

Status StreamEngine::execute(StreamState &stream, Command &command, bool skip) {
  // Only this thread changes ready times and link times. The work is
  // released under the device lock: it may hold the last reference to
  // device memory (a tensor, a loaded model).
  std::lock_guard<std::mutex> deviceLock(deviceLock_);
  Work work = std::move(command.work);
  if (skip)
    return Status::success();
  const Arch &arch = device_.arch();
  uint64_t start, end;
  Status s;
  if (command.resource == Resource::Device) {
    start = std::max(stream.readyPs, device_.clockPs());
    device_.idleUntil(start);
    s = work();
    end = device_.clockPs();
  } else {
    uint64_t &linkFree = command.resource == Resource::HostToDevice
                             ? hostToDeviceFreePs_
                             : deviceToHostFreePs_;
    start = std::max(stream.readyPs, linkFree);
    double ps = double(arch.pcieLatencyNs) * 1e3 +
                double(command.bytes) / arch.pcieBytesPerS * 1e12;
    end = start + uint64_t(std::llround(ps));
    s = work();
    linkFree = end;
    device_.traceSpan(command.resource == Resource::HostToDevice
                          ? "PCIe host to device"
                          : "PCIe device to host",
                      command.label, start, end);
  }
  stream.readyPs = end;
  device_.traceSpan(stream.track, command.label, start, end);
  return s;
}

Status StreamEngine::synchronize(uint32_t stream) {
  std::unique_lock<std::mutex> lock(mutex_);
  StreamState *state = find(stream);
  if (!state)
    return invalidArgument("unknown or destroyed stream");
  changed_.wait(lock, [&] { return state->completed == state->enqueued; });
  return state->error;
}

bool StreamEngine::done(uint32_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  StreamState *state = find(stream);
  return state && state->completed == state->enqueued;
}

void StreamEngine::synchronize(const Event &event) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return event.completed >= event.recorded; });
}

bool StreamEngine::done(const Event &event) {
  std::lock_guard<std::mutex> lock(mutex_);
  return event.completed >= event.recorded;
}

Status StreamEngine::elapsedNs(const Event &start, const Event &end,
                               double &ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Event *e : {&start, &end})
    if (!e->recorded || e->completed < e->recorded)
      return invalidArgument(
          "an event that was never recorded, or has not happened yet");
  ns = (double(end.timePs) - double(start.timePs)) * 1e-3;
  return Status::success();
}

} // namespace spyre::rt

'use strict';

class EventBus {
  constructor(name) {
    this.name = name;
    this.handlers = new Map();
    this.history = [];
  }

  on(event, handler) {
    if (!this.handlers.has(event)) {
      this.handlers.set(event, []);
    }
    this.handlers.get(event).push(handler);
    return () => this.off(event, handler);
  }

  once(event, handler) {
    const bus = this;
    function wrapper(payload) {
      bus.off(event, wrapper);
      return handler(payload);
    }
    return this.on(event, wrapper);
  }

  off(event, handler) {
    const list = this.handlers.get(event) || [];
    this.handlers.set(event, list.filter((h) => h !== handler));
  }

  emit(event, payload) {
    this.history.push(event);
    const list = (this.handlers.get(event) || []).slice();
    return list.map((handler) => handler(payload));
  }
}

class LoggingBus extends EventBus {
  constructor(name, logger) {
    super(name);
    this.logger = logger;
  }

  emit(event, payload) {
    this.logger.write(`${this.name}: ${event}`);
    return super.emit(event, payload);
  }
}

module.exports = { EventBus, LoggingBus };

import { Injectable } from '@nestjs/common';

/** Set when SIGTERM arrives: readiness turns false so the load balancer stops sending traffic. */
@Injectable()
export class ShutdownState {
  draining = false;
  private readonly closingListeners: (() => void)[] = [];

  /**
   * Runs `listener` when the listener socket closes, after the drain delay: long-lived answers
   * (the widget's live streams) end then, so the wait for in-flight requests can finish.
   */
  onClosing(listener: () => void): void {
    this.closingListeners.push(listener);
  }

  closing(): void {
    for (const listener of this.closingListeners) listener();
  }
}

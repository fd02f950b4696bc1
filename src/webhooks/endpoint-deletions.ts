import { Injectable } from '@nestjs/common';

/**
 * Tells this process's delivery worker that an endpoint was deleted, after the deletion committed
 * and before its 204 is sent: the worker drops the endpoint's deliveries claimed ahead, so nothing
 * goes to it after the answer. Other instances learn of it when they check at send time.
 */
@Injectable()
export class EndpointDeletions {
  private readonly listeners: ((endpointId: string) => void)[] = [];

  onDeleted(listener: (endpointId: string) => void): void {
    this.listeners.push(listener);
  }

  deleted(endpointId: string): void {
    for (const listener of this.listeners) listener(endpointId);
  }
}

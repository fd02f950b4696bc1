import { endpointOutcomes, isUnreachable } from './endpoint-health';

const refused = { status: 'pending', responseStatus: null, error: 'connection refused' };
const answered500 = { status: 'pending', responseStatus: 500, error: 'HTTP 500' };
const succeeded = { status: 'succeeded', responseStatus: 200, error: null };

describe('endpointOutcomes', () => {
  it('counts attempts without an HTTP answer as unreachable, an answer of any status as reached', () => {
    expect([refused, answered500, succeeded].map(isUnreachable)).toEqual([true, false, false]);
  });

  it('continues the stored run when the batch holds only unreachable attempts', () => {
    expect(
      endpointOutcomes([
        { endpointId: 'a', attempt: refused },
        { endpointId: 'a', attempt: refused },
      ]),
    ).toEqual([{ endpointId: 'a', succeeded: false, continuesRun: true, unreachable: 2 }]);
  });

  it('starts the run again after an answer, in the order the attempts ended, per endpoint', () => {
    expect(
      endpointOutcomes([
        { endpointId: 'a', attempt: refused },
        { endpointId: 'b', attempt: answered500 },
        { endpointId: 'a', attempt: succeeded },
        { endpointId: 'a', attempt: refused },
      ]),
    ).toEqual([
      { endpointId: 'a', succeeded: true, continuesRun: false, unreachable: 1 },
      { endpointId: 'b', succeeded: false, continuesRun: false, unreachable: 0 },
    ]);
  });
});

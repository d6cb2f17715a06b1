import { DomainError } from '@app/core';
import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { ConcurrencySlots } from './studio-slots';

/** What the slots use of a response: its state and its 'close'. */
const response = (state: { destroyed?: boolean; writableFinished?: boolean } = {}) =>
  Object.assign(new EventEmitter(), { destroyed: false, writableFinished: false, ...state }) as unknown as Response;

const refusal = (run: () => void) => {
  try {
    run();
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('not refused');
};

describe(ConcurrencySlots.name, () => {
  it('holds a slot until the response closes; past the session share 429, past the process 503, both with Retry-After', () => {
    const sut = new ConcurrencySlots({ perSession: 2, perProcess: 3 }, 'writes');
    const [a1, a2, b1] = [response(), response(), response()];
    sut.holdUntilClosed('a', a1);
    sut.holdUntilClosed('a', a2);
    expect(refusal(() => sut.holdUntilClosed('a', response()))).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 2 });
    sut.holdUntilClosed('b', b1);
    expect(refusal(() => sut.holdUntilClosed('c', response()))).toMatchObject({ code: 'unavailable', retryAfterSeconds: 2 });
    expect([sut.inUse, sut.heldBy('a'), sut.heldBy('b')]).toEqual([3, 2, 1]);

    a1.emit('close');
    sut.holdUntilClosed('c', response());
    b1.emit('close');
    a2.emit('close');
    expect([sut.inUse, sut.heldBy('a'), sut.heldBy('b'), sut.heldBy('c')]).toEqual([1, 0, 0, 1]);
  });

  it('takes nothing for a response that already closed (its close would never come)', () => {
    const sut = new ConcurrencySlots({ perSession: 1, perProcess: 1 }, 'writes');
    expect(refusal(() => sut.holdUntilClosed('a', response({ destroyed: true })))).toMatchObject({ code: 'bad_request' });
    expect(refusal(() => sut.holdUntilClosed('a', response({ writableFinished: true })))).toMatchObject({ code: 'bad_request' });
    expect(sut.inUse).toBe(0);
  });
});

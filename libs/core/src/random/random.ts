import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';

/** Cryptographic randomness, behind a port so unit tests can make secrets predictable. */
@Injectable()
export class RandomSource {
  bytes(n: number): Buffer {
    return randomBytes(n);
  }
}

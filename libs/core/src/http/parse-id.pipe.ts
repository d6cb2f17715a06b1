import { Injectable, PipeTransform } from '@nestjs/common';
import { DomainError, ErrorCode } from '../errors';
import { IdPrefix, isValidId } from '../ids';

/** A path id that is not syntactically valid for its route is `400 invalid_id` (docs/api.md, Conventions, "Identifiers"). */
@Injectable()
export class ParseIdPipe implements PipeTransform<unknown, string> {
  constructor(private readonly prefix: IdPrefix) {}

  transform(value: unknown): string {
    if (!isValidId(this.prefix, value)) {
      throw new DomainError(ErrorCode.InvalidId, `The identifier is not a valid ${this.prefix}_ identifier.`);
    }
    return value;
  }
}

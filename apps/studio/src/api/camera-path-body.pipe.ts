import { sampleFieldErrors } from '@app/camera-paths';
import { DomainError, DomainValidationPipe, ErrorCode, FieldError, isDomainError, MAX_FIELD_ERRORS } from '@app/core';
import { ArgumentMetadata, createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import type { Request } from 'express';

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The body of a camera path's POST or PUT, validated by its DTO, with the samples of a take (up
 * to 20 000 small objects) taken out first: they are checked by the lib's plain sample check, and
 * only those that fail it go through the DTO, for its field errors (`sampleFieldErrors`). The
 * answer is the DTO's either way, without spending seconds of the event loop on a long take.
 */
@Injectable()
export class CameraPathBodyPipe implements PipeTransform<unknown, Promise<unknown>> {
  private readonly dto = new DomainValidationPipe();

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const asBody: ArgumentMetadata = { type: 'body', metatype: metadata.metatype };
    const document = isPlain(value) ? value.document : undefined;
    // Anything but an object with a document holding a samples array: the DTO answers alone.
    if (!isPlain(value) || !isPlain(document) || !Array.isArray(document.samples)) return this.dto.transform(value, asBody);
    const samples: unknown[] = document.samples;

    const errors: FieldError[] = [];
    let dto: { document: { samples: unknown[] } } | undefined;
    try {
      dto = (await this.dto.transform({ ...value, document: { ...document, samples: [] } }, asBody)) as typeof dto;
    } catch (e) {
      if (!isDomainError(e, ErrorCode.ValidationFailed)) throw e;
      errors.push(...(e.errors ?? []));
    }
    errors.push(...sampleFieldErrors(samples, 'document.samples', MAX_FIELD_ERRORS));
    if (errors.length > 0 || !dto) throw DomainError.validation(errors.slice(0, MAX_FIELD_ERRORS));
    dto.document.samples = samples;
    return dto;
  }
}

const RequestBody = createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<Request>().body);

/**
 * `@Body()` for a camera path's write: a custom parameter, which the app's global validation pipe
 * leaves alone (it would run class-validator over every sample), validated by the pipe above.
 */
export const CameraPathBody = (): ParameterDecorator => RequestBody(new CameraPathBodyPipe());

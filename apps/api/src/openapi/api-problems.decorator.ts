import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

/** Documents the problem responses of an operation; their body schema is added uniformly later. */
export function ApiProblems(responses: Record<number, string>): MethodDecorator & ClassDecorator {
  return applyDecorators(...Object.entries(responses).map(([status, description]) => ApiResponse({ status: Number(status), description })));
}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `GET /v1/usage`: the period, in UTC days (both inclusive, at most 93 days). */
export class UsageQuery {
  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-01',
    description: 'First day (UTC). Default: the first of the month of `to`, or of today.',
  })
  @IsOptional()
  @IsString({ message: 'from must be given once' })
  @Matches(DATE, { message: 'from must be a date, YYYY-MM-DD' })
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-27',
    description: 'Last day (UTC). Default: today, or the end of the month of `from` if sooner.',
  })
  @IsOptional()
  @IsString({ message: 'to must be given once' })
  @Matches(DATE, { message: 'to must be a date, YYYY-MM-DD' })
  to?: string;
}

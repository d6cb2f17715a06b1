import { DiscoveryService } from '@nestjs/core';
import { JobName } from './queue.constants';

/**
 * Marks a service method as the handler of one job name. The worker finds handlers at boot and
 * refuses to start when a job name has none, or more than one.
 */
export const OnJob = DiscoveryService.createDecorator<JobName>();

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeyEntity } from './api-key.entity';
import { ApprovedOriginEntity, OrganizationEntity } from './organization.entity';
import { OriginRemovalHooks } from './origin-removal-hooks';
import { ApiKeysRepository, OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';

@Module({
  imports: [TypeOrmModule.forFeature([OrganizationEntity, ApprovedOriginEntity, ApiKeyEntity])],
  providers: [OrganizationsRepository, ApiKeysRepository, OrganizationsService, ApiKeyAuthenticator, OriginRemovalHooks],
  exports: [OrganizationsService, ApiKeyAuthenticator, OriginRemovalHooks],
})
export class OrganizationsModule {}

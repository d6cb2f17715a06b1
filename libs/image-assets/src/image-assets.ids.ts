/** Prefix of image assets (docs/api.md, "Identifiers"). Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const ImageAssetIdPrefix = {
  ImageAsset: 'img',
} as const;

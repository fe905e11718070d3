import { fileBehaviours, s3Backend } from '../helpers/files.js';

/** The owner's file API with FILES_S3_BUCKET set, against a real S3-compatible server (s3rver, test/helpers/s3rver.ts). */
fileBehaviours(s3Backend);

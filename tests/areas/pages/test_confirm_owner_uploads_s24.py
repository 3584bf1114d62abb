"""Session 24: confirm of a direct upload acts only on the caller's own presigned upload, and checks an SVG on the
same window as POST /api/pages/upload."""
from tests.areas.pages.test_uploads import multipart, png_bytes, post_to_bucket, upload
from tests.factories import make_user

# an SVG whose <svg> tag comes after a long comment (editors' metadata): accepted through POST /api/pages/upload
SVG_LONG = b'<?xml version="1.0"?><!-- ' + b"x" * 5000 + b' --><svg xmlns="http://www.w3.org/2000/svg"></svg>'


def stored(aws, key) -> int:
    return aws["s3"].list_objects_v2(Bucket=aws["bucket"], Prefix=key).get("KeyCount", 0)


def presign(api, user, name, content_type, size):
    response = api.post("/api/pages/upload/presign", as_=user,
                        json={"file_name": name, "content_type": content_type, "size": size})
    assert response.status == 200, response
    return response.json


def test_svg_with_its_tag_after_4_kb_is_accepted_by_confirm_as_by_upload(api, db, aws):
    user = make_user(db)
    direct = upload(api, user, multipart(filename="a.svg", content_type="image/svg+xml", data=SVG_LONG))
    assert direct.status == 200, direct
    out = presign(api, user, "a.svg", "image/svg+xml", len(SVG_LONG))
    assert post_to_bucket(out, SVG_LONG, "image/svg+xml") in (200, 201, 204)
    confirmed = api.post("/api/pages/upload/confirm", as_=user, json={"key": out["key"], "file_name": "a.svg"})
    assert confirmed.status == 200, confirmed
    assert confirmed.json["size"] == len(SVG_LONG) and stored(aws, out["key"]) == 1


def test_presigned_post_carries_the_uploader(api, db, aws):
    user = make_user(db)
    out = presign(api, user, "a.png", "image/png", 100)
    assert out["fields"]["x-amz-meta-uploader"] == str(user.id)
    assert post_to_bucket(out, png_bytes(), "image/png") in (200, 201, 204)
    head = aws["s3"].head_object(Bucket=aws["bucket"], Key=out["key"])
    assert head["Metadata"].get("uploader") == str(user.id)


def test_another_users_confirm_cannot_delete_a_file_stored_by_upload(api, db, aws):
    owner, other = make_user(db), make_user(db)
    direct = upload(api, owner, multipart(filename="a.svg", content_type="image/svg+xml", data=SVG_LONG))
    assert direct.status == 200, direct
    key = direct.json["key"]
    # the stored object fails the (old, 4 KB) check; whatever the check, another user's confirm touches nothing
    response = api.post("/api/pages/upload/confirm", as_=other, json={"key": key})
    assert response.status == 404, response
    assert stored(aws, key) == 1, "the owner's stored, served file was deleted by another user's confirm"


def test_another_users_confirm_of_a_bad_direct_upload_is_404_and_deletes_nothing(api, db, aws):
    owner, other = make_user(db), make_user(db)
    out = presign(api, owner, "fake.png", "image/png", 20)
    assert post_to_bucket(out, b"MZ\x90\x00 not an image at all", "image/png") in (200, 201, 204)
    assert api.post("/api/pages/upload/confirm", as_=other, json={"key": out["key"]}).status == 404
    assert stored(aws, out["key"]) == 1
    # the uploader's own confirm still refuses and removes it
    assert api.post("/api/pages/upload/confirm", as_=owner, json={"key": out["key"]}).status == 415
    assert stored(aws, out["key"]) == 0


def test_another_users_confirm_of_a_good_direct_upload_is_404(api, db, aws):
    owner, other = make_user(db), make_user(db)
    data = png_bytes()
    out = presign(api, owner, "a.png", "image/png", len(data))
    assert post_to_bucket(out, data, "image/png") in (200, 201, 204)
    assert api.post("/api/pages/upload/confirm", as_=other, json={"key": out["key"]}).status == 404
    assert api.post("/api/pages/upload/confirm", as_=owner, json={"key": out["key"]}).status == 200


def test_object_without_uploader_is_404_and_kept(api, db, aws):
    user = make_user(db)
    out = presign(api, user, "fake.png", "image/png", 20)
    aws["s3"].put_object(Bucket=aws["bucket"], Key=out["key"], Body=b"not a png", ContentType="image/png")
    assert api.post("/api/pages/upload/confirm", as_=user, json={"key": out["key"]}).status == 404
    assert stored(aws, out["key"]) == 1

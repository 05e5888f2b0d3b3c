from django.urls import path

from judge_site.courses import api, exam_api, exam_views, views

app_name = "courses"

urlpatterns = [
    path("courses/", views.course_list, name="list"),
    path("courses/new", views.course_create, name="create"),
    path("courses/join", views.course_join, name="join"),
    path(
        "courses/invitations/<int:invitation_id>/accept",
        views.invitation_accept,
        name="invitation_accept",
    ),
    path(
        "courses/invitations/<int:invitation_id>/decline",
        views.invitation_decline,
        name="invitation_decline",
    ),
    path("courses/<int:course_id>/", views.course_detail, name="detail"),
    path("courses/<int:course_id>/email-sharing", views.email_sharing, name="email_sharing"),
    path("courses/<int:course_id>/manage", views.course_manage, name="manage"),
    path("courses/<int:course_id>/progress", views.course_progress, name="progress"),
    path("courses/<int:course_id>/rotate-code", views.course_rotate, name="rotate"),
    path("courses/<int:course_id>/roster", views.roster_import, name="roster"),
    path("courses/<int:course_id>/instructors", views.instructor_add, name="instructor_add"),
    path("courses/<int:course_id>/assignments", views.assignment_create, name="assignment_create"),
    path(
        "courses/<int:course_id>/assignments/<int:assignment_id>/reschedule",
        views.assignment_reschedule,
        name="reschedule",
    ),
    path(
        "courses/<int:course_id>/assignments/<int:assignment_id>/extension",
        views.extension_grant,
        name="extension",
    ),
    path(
        "courses/<int:course_id>/students/<int:user_id>/remove",
        views.student_remove,
        name="student_remove",
    ),
    path(
        "courses/<int:course_id>/students/<int:user_id>/problems/<int:number>",
        views.student_submissions,
        name="student_submissions",
    ),
    path(
        "courses/<int:course_id>/leaderboard/<int:number>",
        views.course_leaderboard,
        name="leaderboard",
    ),
    path("courses/<int:course_id>/exams", exam_views.exam_create, name="exam_create"),
    path("courses/<int:course_id>/exams/<int:exam_id>/", exam_views.exam_detail, name="exam"),
    path("courses/<int:course_id>/exams/<int:exam_id>/start", exam_views.exam_start,
         name="exam_start"),
    path("courses/<int:course_id>/exams/<int:exam_id>/extension", exam_views.exam_extend,
         name="exam_extend"),
    path("courses/<int:course_id>/exams/<int:exam_id>/unfreeze", exam_views.exam_unfreeze,
         name="exam_unfreeze"),
    path("api/v1/courses/<int:course_id>/exams", exam_api.exams, name="api_exams"),
    path("api/v1/courses/<int:course_id>/exams/<int:exam_id>/start", exam_api.exam_start,
         name="api_exam_start"),
    path("api/v1/courses/<int:course_id>/exams/<int:exam_id>/scoreboard",
         exam_api.exam_scoreboard, name="api_exam_scoreboard"),
    path("api/v1/courses/<int:course_id>/exams/<int:exam_id>/unfreeze", exam_api.exam_unfreeze,
         name="api_exam_unfreeze"),
    path("api/v1/courses", api.courses, name="api_courses"),
    path("api/v1/courses/invitations", api.my_invitations, name="api_invitations"),
    path(
        "api/v1/courses/invitations/<int:invitation_id>/accept",
        api.invitation_accept,
        name="api_invitation_accept",
    ),
    path(
        "api/v1/courses/invitations/<int:invitation_id>/decline",
        api.invitation_decline,
        name="api_invitation_decline",
    ),
    path("api/v1/courses/<int:course_id>/join", api.course_join, name="api_course_join"),
    path("api/v1/courses/<int:course_id>/roster", api.course_roster, name="api_course_roster"),
    path(
        "api/v1/courses/<int:course_id>/assignments",
        api.course_assignments,
        name="api_course_assignments",
    ),
    path("api/v1/courses/<int:course_id>/grades.csv", api.course_grades, name="api_course_grades"),
]
